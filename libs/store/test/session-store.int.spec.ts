/**
 * SessionStore against the run's Redis: created, resumed, foreign.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreInputError, createRedisStores, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { openClient, testKeys } from './support.js';

const TTL_MS = 30_000;
const T0 = Date.parse('2025-06-01T12:00:00.000Z');

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  redis = await openClient('store-test:sessions');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys });
});

describe('SessionStore', () => {
  const agent = { id: 'agent-1', name: 'Agent 1' };

  it('creates a session, resumes it for its agent, and refuses it to another', async () => {
    await expect(stores.sessions.open(agent, undefined, 'sess-1', T0, TTL_MS)).resolves.toEqual({ kind: 'created', sessionId: 'sess-1' });
    await expect(stores.sessions.open(agent, 'sess-1', 'sess-2', T0 + 1, TTL_MS)).resolves.toEqual({ kind: 'resumed', sessionId: 'sess-1' });
    await expect(stores.sessions.open({ id: 'agent-2', name: 'Agent 2' }, 'sess-1', 'sess-3', T0 + 2, TTL_MS)).resolves.toEqual({ kind: 'foreign' });
    expect(await redis.exists([keys.session('sess-2'), keys.session('sess-3')])).toBe(0);
  });

  it('creates the new id when the requested session is unknown or expired, with the TTL restarting on use', async () => {
    await expect(stores.sessions.open(agent, 'gone', 'sess-9', T0, TTL_MS)).resolves.toEqual({ kind: 'created', sessionId: 'sess-9' });
    const ttl = await redis.pTTL(keys.session('sess-9'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(TTL_MS);
    await stores.sessions.open(agent, 'sess-9', 'unused', T0 + 1, TTL_MS * 10);
    expect(await redis.pTTL(keys.session('sess-9'))).toBeGreaterThan(TTL_MS);
  });

  it('refuses a new id that is already taken by another agent', async () => {
    await stores.sessions.open(agent, undefined, 'sess-1', T0, TTL_MS);
    await expect(stores.sessions.open({ id: 'agent-2', name: 'Agent 2' }, undefined, 'sess-1', T0, TTL_MS)).rejects.toBeInstanceOf(StoreInputError);
  });
});
