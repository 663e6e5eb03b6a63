// Starts: the run's private Redis (or its cluster). Decision links: the secret generated once and
// shared, tokens that verify only unaltered and unexpired, and single use across "gateways"
// (two store callers racing on one link); a dead delivery replayed off the dead-letter list; the
// Web Push VAPID keys generated once and each operator's subscriptions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_PUSH_SUBSCRIPTIONS,
  claimDecisionLink,
  createNotificationStore,
  createPushSubscriptionStore,
  loadVapidKeys,
  decisionLinkUse,
  loadDecisionLinkSecret,
  newLinkId,
  signDecisionLink,
  verifyDecisionLink,
  type RedisClient,
} from '../src/index.js';
import { openClient, randomUUID, testKeys } from './support.js';

const NOW = Date.parse('2026-11-26T07:00:00.000Z');

const claims = (over: Partial<Parameters<typeof signDecisionLink>[1]> = {}) => ({
  v: 1 as const,
  jti: newLinkId(),
  request_id: 'req_tool_abc',
  decision: 'approve' as const,
  channel: 'on-call',
  tier: 0,
  exp: Math.floor(NOW / 1000) + 600,
  ...over,
});

describe('decision links', () => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = await openClient('decision-links');
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('generates the secret once: every process reads the same one; a configured secret wins, a short one is refused', async () => {
    const keys = testKeys('links-secret');
    const [a, b] = await Promise.all([loadDecisionLinkSecret(redis, keys), loadDecisionLinkSecret(redis, keys)]);
    expect(a).toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect(await loadDecisionLinkSecret(redis, keys)).toBe(a);
    expect(await loadDecisionLinkSecret(redis, keys, 'x'.repeat(40))).toBe('x'.repeat(40));
    await expect(loadDecisionLinkSecret(redis, keys, 'short')).rejects.toThrow(/at least 32/);
  });

  it('verifies only what this secret signed, unaltered and before it expires', () => {
    const secret = 's'.repeat(43);
    const token = signDecisionLink(secret, claims());
    const ok = verifyDecisionLink(secret, token, NOW);
    expect(ok).toMatchObject({ ok: true, claims: { request_id: 'req_tool_abc', decision: 'approve' } });
    expect(verifyDecisionLink('t'.repeat(43), token, NOW)).toEqual({ ok: false, refusal: 'invalid' });
    // The claims changed to reject, the MAC kept: refused.
    const [v, body, mac] = token.split('.');
    const forged = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as Record<string, unknown>;
    forged['decision'] = 'reject';
    expect(verifyDecisionLink(secret, `${v}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`, NOW)).toEqual({ ok: false, refusal: 'invalid' });
    expect(verifyDecisionLink(secret, 'v1.e30.AAAA', NOW)).toEqual({ ok: false, refusal: 'invalid' });
    expect(verifyDecisionLink(secret, 'garbage', NOW)).toEqual({ ok: false, refusal: 'invalid' });
    expect(verifyDecisionLink(secret, token, NOW + 600_000)).toEqual({ ok: false, refusal: 'expired' });
    expect(() => signDecisionLink(secret, claims({ jti: 'short' }))).toThrow(/invalid decision link claims/);
  });

  it('is single-use: of two redeems racing, one wins; the use names the operator and expires with the link', async () => {
    const keys = testKeys('links-use');
    const link = claims();
    expect(await decisionLinkUse(redis, keys, link.jti)).toBeNull();
    const results = await Promise.all([claimDecisionLink(redis, keys, link, 'op-ada', NOW), claimDecisionLink(redis, keys, link, 'op-bob', NOW)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const use = await decisionLinkUse(redis, keys, link.jti);
    expect(['op-ada', 'op-bob']).toContain(use?.operator);
    const ttl = await redis.pTTL(keys.decisionLinkUsed(link.jti));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600_000);
    expect(await claimDecisionLink(redis, keys, link, 'op-ada', NOW)).toBe(false);
  });

  it('a replayed dead delivery leaves the dead-letter list, is pending again and names who replayed it', async () => {
    const store = createNotificationStore({ redis, keys: testKeys('links-replay') });
    const id = randomUUID();
    const other = randomUUID();
    const meta = (delivery: string) => ({ delivery_id: delivery, channel: 'down', channel_type: 'webhook' as const, request_id: 'req_1', request_type: 'tool_approval' as const, created_at: new Date(NOW).toISOString() });
    await store.open(meta(id));
    await store.open(meta(other));
    const letter = (delivery: string) => ({ delivery_id: delivery, channel: 'down', request_id: 'req_1', attempts: 3, error: 'the receiver answered 500', at: new Date(NOW).toISOString() });
    await store.deadLetter(letter(id));
    await store.deadLetter(letter(other));
    expect(await store.replayed(id, 'op-ada')).toBe(true);
    expect((await store.deadLetters(10)).map((d) => d.delivery_id)).toEqual([other]);
    expect(await store.get(id)).toMatchObject({ status: 'pending', replayed_by: ['op-ada'] });
    expect(await store.replayed(randomUUID(), 'op-ada')).toBe(false);
  });

  it('generates the VAPID key pair once (P-256, base64url) and every process reads the same one', async () => {
    const keys = testKeys('push-vapid');
    const [a, b] = await Promise.all([loadVapidKeys(redis, keys), loadVapidKeys(redis, keys)]);
    expect(a).toEqual(b);
    expect(Buffer.from(a.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(a.privateKey, 'base64url')).toHaveLength(32);
    await redis.set(keys.vapidKeys, '{"publicKey":"short"}');
    await expect(loadVapidKeys(redis, keys)).rejects.toThrow(/missing or malformed/);
  });

  it('generates a 32-byte private scalar every time, and pads a 31-byte one stored by an earlier version', async () => {
    // One scalar in 256 has a leading zero byte, which ECDH drops: 1,000 pairs meet a few of them.
    for (let i = 0; i < 1000; i++) {
      const keys = testKeys(`push-vapid-${i}`);
      expect(Buffer.from((await loadVapidKeys(redis, keys)).privateKey, 'base64url')).toHaveLength(32);
    }
    const keys = testKeys('push-vapid-short');
    const short = Buffer.alloc(31, 7);
    const publicKey = Buffer.alloc(65, 4).toString('base64url');
    await redis.set(keys.vapidKeys, JSON.stringify({ publicKey, privateKey: short.toString('base64url') }));
    const loaded = await loadVapidKeys(redis, keys);
    expect(loaded.publicKey).toBe(publicKey);
    expect(Buffer.from(loaded.privateKey, 'base64url')).toEqual(Buffer.concat([Buffer.alloc(1), short]));
  });

  it("keeps each operator's push subscriptions, one per endpoint, the newest within the cap", async () => {
    const subscriptions = createPushSubscriptionStore({ redis, keys: testKeys('push-subs') });
    const sub = (n: number) => ({ endpoint: `https://push.example.test/s/${n}`, keys: { p256dh: 'BPub', auth: 'QXV0aA' } });
    await subscriptions.add('op-ada', sub(1), NOW);
    await subscriptions.add('op-ada', { ...sub(1), expirationTime: null }, NOW + 1);
    expect((await subscriptions.list('op-ada')).map((s) => [s.subscription.endpoint, s.created_at])).toEqual([[sub(1).endpoint, new Date(NOW + 1).toISOString()]]);
    expect(await subscriptions.list('op-bob')).toEqual([]);
    for (let n = 2; n <= MAX_PUSH_SUBSCRIPTIONS + 2; n += 1) await subscriptions.add('op-ada', sub(n), NOW + n);
    const kept = await subscriptions.list('op-ada');
    expect(kept).toHaveLength(MAX_PUSH_SUBSCRIPTIONS);
    expect(kept[0]?.subscription.endpoint).toBe(sub(3).endpoint);
    expect(await subscriptions.remove('op-ada', sub(3).endpoint)).toBe(true);
    expect(await subscriptions.remove('op-ada', sub(3).endpoint)).toBe(false);
    await expect(subscriptions.add('op-ada', { endpoint: 'javascript:alert(1)', keys: { p256dh: 'x', auth: 'y' } }, NOW)).rejects.toThrow(/invalid push subscription/);
  });
});
