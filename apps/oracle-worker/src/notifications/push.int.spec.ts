// Starts: a local HTTP server standing for a push service (the real ones, FCM, Mozilla's, Apple's,
// cannot be reached here). Subscriptions live in a map here (their Redis store is tested in
// libs/store; the whole path in e2e/system/notification-links.int.spec.ts).
// web-push encrypts to a browser key pair generated in this file, and the stub decrypts every
// message (RFC 8291 aes128gcm) and checks its VAPID authorization (RFC 8292): what a push
// service and a browser would do. A subscription answered 410 is removed; a 500 is retried.
import { createECDH, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnrecoverableError } from 'bullmq';
import { NotificationJobDataSchema, PushPayloadSchema, type NotificationJobData, type PushPayload } from '@ahp/protocol';
import { verifyDecisionLink, type PushSubscriptionStore, type VapidKeys } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationDelivery } from './deliver.js';
import { deliveryIdOf } from './dispatcher.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const SECRET = 'link-secret-for-the-push-test-0123456789ab';

/** A browser's side of a subscription: its P-256 key pair and auth secret. */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, auth: randomBytes(16) };
}

/** RFC 8291: what the browser does with an aes128gcm push message (one record). */
function decrypt(body: Buffer, browser: ReturnType<typeof browserKeys>): string {
  const salt = body.subarray(0, 16);
  const idlen = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const shared = browser.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), browser.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, browser.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const plain = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then padding zeros.
  let end = plain.length;
  while (end > 0 && plain[end - 1] === 0) end -= 1;
  return plain.subarray(0, end - 1).toString('utf8');
}

interface Pushed {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const pushed: Pushed[] = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      pushed.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const status = req.url?.startsWith('/gone') ? 410 : req.url?.startsWith('/broken') ? 500 : 201;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function job(operators: string[], request = 'req_push_1'): NotificationJobData {
  return NotificationJobDataSchema.parse({
    delivery_id: deliveryIdOf(request, 'phones'),
    channel: 'phones',
    target: { type: 'push', operators },
    request: { id: request, type: 'tool_approval', sender: 'builder', summary: 'Approve a call of tool deploy.', created_at: '2026-11-26T05:00:00.000Z' },
    console_url: 'https://ahp.example.test/approvals',
  });
}

/** A VAPID key pair as the store generates it (P-256, base64url). */
function vapidKeys(): VapidKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: ecdh.getPrivateKey().toString('base64url') };
}

/** Subscriptions in a map, with the store's interface. */
function memorySubscriptions(): Pick<PushSubscriptionStore, 'list' | 'remove'> & { add(operator: string, subscription: { endpoint: string; keys: { p256dh: string; auth: string } }): void } {
  const byOperator = new Map<string, { endpoint: string; keys: { p256dh: string; auth: string } }[]>();
  return {
    add(operator, subscription) {
      byOperator.set(operator, [...(byOperator.get(operator) ?? []), subscription]);
    },
    async list(operator) {
      return (byOperator.get(operator) ?? []).map((subscription) => ({ subscription, operator, created_at: '2026-11-26T05:00:00.000Z' }));
    },
    async remove(operator, endpoint) {
      const before = byOperator.get(operator) ?? [];
      byOperator.set(operator, before.filter((s) => s.endpoint !== endpoint));
      return before.length !== (byOperator.get(operator) ?? []).length;
    },
  };
}

function setup() {
  const subscriptions = memorySubscriptions();
  const dead: string[] = [];
  const delivered: string[] = [];
  const store = {
    skipped: async () => undefined,
    recordAttempt: async () => undefined,
    delivered: async (id: string) => void delivered.push(id),
    deadLetter: async (letter: { error: string }) => void dead.push(letter.error),
  };
  return { subscriptions, dead, delivered, store };
}

describe('the push channel (web-push against a local push endpoint stub)', () => {
  it('each operator gets a message encrypted to its browser, VAPID-signed, with links bound to it', async () => {
    const s = setup();
    const vapid = vapidKeys();
    const ada = browserKeys();
    const lea = browserKeys();
    const sub = (path: string, browser: ReturnType<typeof browserKeys>) => ({ endpoint: `${base}${path}`, keys: { p256dh: browser.ecdh.getPublicKey().toString('base64url'), auth: browser.auth.toString('base64url') } });
    s.subscriptions.add('op-ada', sub('/push/ada', ada));
    s.subscriptions.add('op-lea', sub('/push/lea', lea));
    const deliver = createNotificationDelivery({ store: s.store, env: {}, timeoutMs: 2_000, logger: silent, links: { secret: SECRET, ttlMs: 600_000 }, push: { subscriptions: s.subscriptions, vapid, subject: 'mailto:ops@example.test', allowHttp: true } });
    await deliver(job(['op-ada', 'op-lea']), { attempt: 1, attempts: 3 });
    expect(s.delivered).toHaveLength(1);

    for (const [path, browser, operator] of [['/push/ada', ada, 'op-ada'], ['/push/lea', lea, 'op-lea']] as const) {
      const message = pushed.find((p) => p.path === path)!;
      expect(message.headers['content-encoding']).toBe('aes128gcm');
      expect(message.headers['ttl']).toBe('600');
      expect(String(message.headers['authorization'])).toMatch(new RegExp(`^vapid t=[^,]+, k=${vapid.publicKey}$`));
      const jwt = /t=([^,]+)/.exec(String(message.headers['authorization']))![1]!;
      expect(JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'))).toMatchObject({ aud: base, sub: 'mailto:ops@example.test' });
      const payload: PushPayload = PushPayloadSchema.parse(JSON.parse(decrypt(message.body, browser)));
      expect(payload).toMatchObject({ request_id: 'req_push_1', title: 'A tool call waits for approval: builder', url: 'https://ahp.example.test/approvals' });
      const claims = verifyDecisionLink(SECRET, payload.links!.approve.split('#')[1]!, Date.now());
      expect(claims).toMatchObject({ ok: true, claims: { decision: 'approve', operator } });
    }
  });

  it('removes a subscription the push service calls gone; retries when none accepted; dead-letters with no subscription', async () => {
    const s = setup();
    const vapid = vapidKeys();
    const browser = browserKeys();
    const keysOf = { p256dh: browser.ecdh.getPublicKey().toString('base64url'), auth: browser.auth.toString('base64url') };
    s.subscriptions.add('op-ada', { endpoint: `${base}/gone/1`, keys: keysOf });
    s.subscriptions.add('op-ada', { endpoint: `${base}/push/ada2`, keys: keysOf });
    s.subscriptions.add('op-bob', { endpoint: `${base}/broken/1`, keys: keysOf });
    const deliver = createNotificationDelivery({ store: s.store, env: {}, timeoutMs: 2_000, logger: silent, push: { subscriptions: s.subscriptions, vapid, subject: 'mailto:ops@example.test', allowHttp: true } });
    await deliver(job(['op-ada'], 'req_push_2'), { attempt: 1, attempts: 3 });
    expect((await s.subscriptions.list('op-ada')).map((x) => x.subscription.endpoint)).toEqual([`${base}/push/ada2`]);

    await expect(deliver(job(['op-bob'], 'req_push_3'), { attempt: 1, attempts: 3 })).rejects.toThrow(/no push service accepted the message: 127\.0\.0\.1:\d+: answered 500/);
    expect(await s.subscriptions.list('op-bob')).toHaveLength(1);

    await expect(deliver(job(['op-nobody'], 'req_push_4'), { attempt: 1, attempts: 3 })).rejects.toBeInstanceOf(UnrecoverableError);
    expect(s.dead).toEqual([expect.stringContaining('has turned on push notifications')]);
  });
});
