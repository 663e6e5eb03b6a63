/**
 * Signing notifications: `X-AHP-Signature: sha256=<hex>`, the HMAC-SHA256 of the raw body with
 * the channel's secret. The body carries `sent_at` (equal to `X-AHP-Timestamp`) and the delivery
 * id, so the signature covers them too: a receiver that checks the signature, the age of
 * `sent_at` and the delivery ids it has seen refuses forged, replayed and repeated deliveries.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The `X-AHP-Signature` value of `body` under `secret`. */
export function signNotification(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** Whether `header` is the signature of `body` under `secret` (constant-time comparison). What a receiver runs. */
export function verifyNotificationSignature(secret: string, body: string, header: string | undefined): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signNotification(secret, body), 'utf8');
  const given = Buffer.from(header, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
