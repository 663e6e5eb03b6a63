/**
 * The per-agent notification throttle against the run's Redis (real notify-admit script): places
 * in a window by creation time, the same place for a request routed again, separate windows and
 * agents, concurrent admissions from two clients (two workers), and the digest's count.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createNotificationThrottle, type NotificationThrottle, type RedisClient, type StoreKeys } from '../src/index.js';
import { openClient, testKeys } from './support.js';

const WINDOW = 60_000;
const T0 = Date.parse('2026-11-26T12:00:00.000Z');

let redis: RedisClient;
let other: RedisClient;
let keys: StoreKeys;
let throttle: NotificationThrottle;

beforeAll(async () => {
  [redis, other] = await Promise.all([openClient('store-test:notify-throttle'), openClient('store-test:notify-throttle-2')]);
});
afterAll(async () => {
  await Promise.all([redis.close(), other.close()]);
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  throttle = createNotificationThrottle({ redis, keys, maxPerWindow: 3, windowMs: WINDOW });
});

describe('notification throttle', () => {
  it('notifies the first of a window one by one, gives the next the digest, counts the rest; a request routed again keeps its place', async () => {
    const kinds = [];
    for (let i = 0; i < 6; i++) kinds.push((await throttle.admit('mallory', `req_${i}`, T0 + i)).kind);
    expect(kinds).toEqual(['notify', 'notify', 'notify', 'digest', 'counted', 'counted']);
    expect(await throttle.admit('mallory', 'req_1', T0 + 1)).toEqual({ kind: 'notify', position: 1, windowStartMs: T0, windowEndMs: T0 + WINDOW });
    expect(await throttle.admit('mallory', 'req_3', T0 + 3)).toMatchObject({ kind: 'digest', position: 3 });
    expect(await throttle.beyond('mallory', T0)).toBe(3);
    // Another agent, and the next window, start afresh.
    expect((await throttle.admit('alice', 'req_a', T0 + 10)).kind).toBe('notify');
    expect(await throttle.admit('mallory', 'req_next', T0 + WINDOW + 5)).toMatchObject({ kind: 'notify', position: 0, windowStartMs: T0 + WINDOW });
    expect(await redis.pTTL(keys.notificationWindow('mallory', T0))).toBeGreaterThan(WINDOW);
  });

  it('two workers admitting one agent at once hand out each place once: one digest, never more than the limit one by one', async () => {
    const second = createNotificationThrottle({ redis: other, keys, maxPerWindow: 3, windowMs: WINDOW });
    const admissions = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? throttle : second).admit('mallory', `req_${i}`, T0 + 1_000)));
    expect(admissions.filter((a) => a.kind === 'notify')).toHaveLength(3);
    expect(admissions.filter((a) => a.kind === 'digest')).toHaveLength(1);
    expect(new Set(admissions.map((a) => a.position)).size).toBe(40);
    expect(await Promise.all(Array.from({ length: 40 }, (_, i) => throttle.admit('mallory', `req_${i}`, T0 + 1_000)))).toEqual(admissions);
    expect(await throttle.beyond('mallory', T0)).toBe(37);
  });
});
