/**
 * The Redis rate limiter against the run's Redis (and, for the outage, a private Redis that is
 * stopped): burst and refill, the retry hint, one bucket shared by several clients (gateways),
 * separate buckets per kind and subject, buckets that expire when full, and failing open.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { provideRedis, type RedisHandle } from '@ahp/embedded-redis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreInputError, createRateLimiter, type RateDecision, type RedisClient, type StoreKeys } from '../src/index.js';
import { openClient, recordingLogger, testKeys } from './support.js';

let redis: RedisClient;
let other: RedisClient;
let keys: StoreKeys;

beforeAll(async () => {
  redis = await openClient('store-test:rate-a');
  other = await openClient('store-test:rate-b');
});
afterAll(async () => {
  await redis.close();
  await other.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
});

const allowed = (decisions: RateDecision[]) => decisions.filter((d) => d.allowed).length;

describe('RateLimiter on Redis', () => {
  it('allows a burst, then refuses with a retry hint that holds', async () => {
    // A slow refill (one token per 20 s) so no token comes back while the test runs.
    const limiter = createRateLimiter({ redis, keys, kind: 'agent', limit: { ratePerSecond: 0.05, burst: 3 }, logger: recordingLogger() });
    const first = [];
    for (let i = 0; i < 3; i++) first.push(await limiter.take('alpha'));
    expect(first.map((d) => d.allowed && d.remaining)).toEqual([2, 1, 0]);
    const refused = await limiter.take('alpha');
    expect(refused.allowed).toBe(false);
    if (refused.allowed) return;
    // The next token is due within one emission interval (20 s).
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(20_000);
    // A refusal costs nothing: it is refused again, and other subjects and kinds are untouched.
    expect((await limiter.take('alpha')).allowed).toBe(false);
    expect((await limiter.take('beta')).allowed).toBe(true);
    const operators = createRateLimiter({ redis, keys, kind: 'operator', limit: { ratePerSecond: 0.05, burst: 1 }, logger: recordingLogger() });
    expect((await operators.take('alpha')).allowed).toBe(true);
    // The bucket key lives no longer than it takes to be full again.
    const ttl = await redis.pTTL(keys.rateLimit('agent', 'alpha'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3 * 20_000);
  });

  it('refills at the configured rate: after the hinted wait the request is allowed', async () => {
    const limiter = createRateLimiter({ redis, keys, kind: 'agent', limit: { ratePerSecond: 20, burst: 2 }, logger: recordingLogger() });
    expect(allowed([await limiter.take('a'), await limiter.take('a')])).toBe(2);
    let decision = await limiter.take('a');
    // Waits as told until allowed; a limiter whose hint were wrong would never get there.
    for (let attempt = 0; !decision.allowed && attempt < 5; attempt++) {
      await sleep(decision.retryAfterMs);
      decision = await limiter.take('a');
    }
    expect(decision.allowed).toBe(true);
  });

  it('counts costs against the burst and refuses a cost above it', async () => {
    const limiter = createRateLimiter({ redis, keys, kind: 'agent', limit: { ratePerSecond: 0.05, burst: 5 }, logger: recordingLogger() });
    expect(await limiter.take('a', 4)).toMatchObject({ allowed: true, remaining: 1 });
    expect((await limiter.take('a', 2)).allowed).toBe(false);
    expect((await limiter.take('a', 1)).allowed).toBe(true);
    await expect(limiter.take('a', 6)).rejects.toBeInstanceOf(StoreInputError);
    await expect(limiter.take('not a valid id')).rejects.toBeInstanceOf(StoreInputError);
  });

  it('shares one bucket between gateways: concurrent takes over two connections allow exactly the burst', async () => {
    const limit = { ratePerSecond: 0.05, burst: 10 };
    const gatewayA = createRateLimiter({ redis, keys, kind: 'agent', limit, logger: recordingLogger() });
    const gatewayB = createRateLimiter({ redis: other, keys, kind: 'agent', limit, logger: recordingLogger() });
    const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? gatewayA : gatewayB).take('shared')));
    expect(allowed(decisions)).toBe(10);
  });

  it('leases several tokens in one call, never more than a share of the bucket, and never beyond the burst across gateways', async () => {
    const limit = { ratePerSecond: 0.05, burst: 100 };
    const lease = { upTo: 16, share: 8 };
    const limiter = createRateLimiter({ redis, keys, kind: 'agent', limit, logger: recordingLogger() });
    // 100 tokens: a share of 1/8 is 12, below the 16 asked for.
    expect(await limiter.take('a', 1, lease)).toEqual({ allowed: true, remaining: 88, granted: 12, failedOpen: false });
    expect(await limiter.take('a', 1, { upTo: 4, share: 1 })).toEqual({ allowed: true, remaining: 84, granted: 4, failedOpen: false });
    // Two gateways leasing concurrently hand out the whole bucket and not one token more; the
    // last calls get one token each, then refusals with a retry hint.
    const gatewayB = createRateLimiter({ redis: other, keys, kind: 'agent', limit, logger: recordingLogger() });
    const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? limiter : gatewayB).take('a', 1, lease)));
    const granted = decisions.reduce((sum, d) => sum + (d.allowed ? d.granted : 0), 0);
    expect(granted).toBe(84);
    expect(decisions.filter((d) => d.allowed && d.granted === 1).length).toBeGreaterThan(0);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((d) => !d.allowed && d.retryAfterMs > 0 && d.retryAfterMs <= 20_000)).toBe(true);
    await expect(limiter.take('a', 2, { upTo: 1, share: 1 })).rejects.toBeInstanceOf(StoreInputError);
  });

  it('refuses limits that are not a bucket at creation', () => {
    expect(() => createRateLimiter({ redis, keys, kind: 'agent', limit: { ratePerSecond: 0, burst: 1 }, logger: recordingLogger() })).toThrow(StoreInputError);
    expect(() => createRateLimiter({ redis, keys, kind: 'a kind', limit: { ratePerSecond: 1, burst: 1 }, logger: recordingLogger() })).toThrow(StoreInputError);
  });
});

describe('RateLimiter while Redis is down', () => {
  let server: RedisHandle;
  let client: RedisClient;

  beforeAll(async () => {
    server = await provideRedis({ mode: 'ephemeral' });
    client = await openClient('store-test:rate-outage', server.url);
  });
  afterAll(async () => {
    client?.destroy();
    await server?.stop();
  });

  it('fails open, logs it once per window, and counts again once Redis is back', async () => {
    const logger = recordingLogger();
    const limiter = createRateLimiter({ redis: client, keys, kind: 'agent', limit: { ratePerSecond: 0.05, burst: 1 }, logger, timeoutMs: 100, logEveryMs: 60_000 });
    expect((await limiter.take('a')).allowed).toBe(true);
    expect((await limiter.take('a')).allowed).toBe(false);

    await server.stop({ keepData: true });
    const during = [await limiter.take('a'), await limiter.take('a'), await limiter.take('b')];
    expect(during).toEqual(Array.from({ length: 3 }, () => ({ allowed: true, remaining: 0, granted: 0, failedOpen: true })));
    const warnings = logger.lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({ kind: 'agent', subject: 'a' });

    await server.restart();
    // Wait until the client has reconnected (each probe its own subject: a probe that timed out
    // stays queued and still counts once Redis is back), then buckets count again.
    let probe: RateDecision = { allowed: true, remaining: 0, granted: 0, failedOpen: true };
    for (let attempt = 0; probe.allowed && probe.failedOpen && attempt < 200; attempt++) {
      await sleep(50);
      probe = await limiter.take(`probe-${attempt}`);
    }
    expect(probe).toMatchObject({ allowed: true, failedOpen: false });
    expect(await limiter.take('c')).toMatchObject({ allowed: true, failedOpen: false });
    expect((await limiter.take('c')).allowed).toBe(false);
  });
});
