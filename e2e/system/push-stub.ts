/**
 * The browser's half of Web Push for tests that cannot reach a push service: a subscription's
 * keys (P-256 pair and auth secret, as a browser makes them) and the decryption a browser does
 * with an `aes128gcm` message (RFC 8291, one record). A local HTTP endpoint stands in for the push
 * service; with these, a test reads exactly what the worker sent to a browser.
 */
import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';

export interface BrowserPushKeys {
  readonly ecdh: ReturnType<typeof createECDH>;
  readonly auth: Buffer;
}

export function browserKeys(): BrowserPushKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, auth: randomBytes(16) };
}

/** The subscription a browser would hand to the console for an endpoint. */
export function subscriptionFor(endpoint: string, browser: BrowserPushKeys) {
  return { endpoint, expirationTime: null, keys: { p256dh: browser.ecdh.getPublicKey().toString('base64url'), auth: browser.auth.toString('base64url') } };
}

export function decryptPush(body: Buffer, browser: BrowserPushKeys): string {
  const salt = body.subarray(0, 16);
  const idlen = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), browser.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', browser.ecdh.computeSecret(senderKey), browser.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const plain = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // Padding: zero bytes after the last record's delimiter (0x02).
  let end = plain.length;
  while (end > 0 && plain[end - 1] === 0) end -= 1;
  return plain.subarray(0, end - 1).toString('utf8');
}
