/**
 * SessionStore against the run's Redis: resumed, created, foreign, missing.
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
  it('creates a session, resumes it for its agent, and refuses it to another', async () => {
    await expect(stores.sessions.create('agent-1', 'sess-1', T0, TTL_MS)).resolves.toBe('created');
    await expect(stores.sessions.resume('agent-1', 'sess-1', T0 + 1, TTL_MS)).resolves.toBe('resumed');
    await expect(stores.sessions.resume('agent-2', 'sess-1', T0 + 2, TTL_MS)).resolves.toBe('foreign');
    await expect(stores.sessions.create('agent-2', 'sess-1', T0 + 2, TTL_MS)).resolves.toBe('foreign');
    expect(await redis.hGet(keys.session('sess-1'), 'agent_id')).toBe('agent-1');
  });

  it('writes nothing when the session to resume does not exist', async () => {
    await expect(stores.sessions.resume('agent-1', 'gone', T0, TTL_MS)).resolves.toBe('missing');
    expect(await redis.exists(keys.session('gone'))).toBe(0);
  });

  it('answers resumed when the agent creates a session it already has, and restarts the TTL on use', async () => {
    await stores.sessions.create('agent-1', 'sess-9', T0, TTL_MS);
    const ttl = await redis.pTTL(keys.session('sess-9'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(TTL_MS);
    await expect(stores.sessions.create('agent-1', 'sess-9', T0 + 1, TTL_MS * 10)).resolves.toBe('resumed');
    expect(await redis.pTTL(keys.session('sess-9'))).toBeGreaterThan(TTL_MS);
  });

  it('refuses a TTL that is not a positive whole number of ms', async () => {
    await expect(stores.sessions.create('agent-1', 'sess-1', T0, 0)).rejects.toBeInstanceOf(StoreInputError);
  });
});
