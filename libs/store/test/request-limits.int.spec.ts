/**
 * The request store's bounds against the run's Redis (real RequestStore and InboxStore over it):
 * the most pending requests per sender, and the inbox byte count kept in step when a request
 * withdraws its message.
 */
import { createRequest, type ProtocolState } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TooManyRequestsError, createRedisStores, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { openClient, testKeys } from './support.js';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');
const OP = { kind: 'operator', id: 'op-1' } as const;

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  redis = await openClient('store-test:request-limits');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys, maxPendingRequestsPerAgent: 2, teamOf: () => undefined });
});

function shutdown(requestId: string, sender: string, target = 'alice'): ProtocolState {
  return createRequest({ requestId, sender, target: { kind: 'agent', agent: target }, now: new Date(T0).toISOString(), type: 'shutdown', payload: { reason: 'done' } });
}

describe('pending requests per sender', () => {
  it('refuses a sender its next request at the limit; a re-sent one is answered; settling makes room', async () => {
    await stores.requests.create(shutdown('req_1', 'mallory'), T0);
    await stores.requests.create(shutdown('req_2', 'mallory'), T0);
    const refused = await stores.requests.create(shutdown('req_3', 'mallory'), T0).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(refused).toMatchObject({ code: 'E_TOO_MANY_REQUESTS', agentId: 'mallory', max: 2 });
    expect(await stores.requests.get('req_3')).toBeNull();
    // Re-sending a stored one is fine; another sender is not affected.
    expect(await stores.requests.create(shutdown('req_2', 'mallory'), T0)).toMatchObject({ created: false });
    expect(await stores.requests.create(shutdown('req_b', 'bob'), T0)).toMatchObject({ created: true });

    await stores.requests.decide('req_1', { request_id: 'req_1', type: 'shutdown_response', approve: false }, { kind: 'agent', id: 'alice' }, T0 + 1);
    await stores.requests.cancel('req_2', { kind: 'agent', id: 'mallory' }, T0 + 1);
    expect(await redis.zCard(keys.requestsPendingBySender('mallory'))).toBe(0);
    await stores.requests.create(shutdown('req_3', 'mallory'), T0 + 2);
    expect(await redis.zCard(keys.requestsPendingBySender('mallory'))).toBe(1);
  });

  it('concurrent creates of one sender never pass the limit (counted in the writing script)', async () => {
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => stores.requests.create(shutdown(`req_c${i}`, 'mallory'), T0)));
    const created = results.filter((result) => result.status === 'fulfilled');
    const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    expect(created).toHaveLength(2);
    expect(refused).toHaveLength(18);
    expect(refused.every((error) => error instanceof TooManyRequestsError)).toBe(true);
    expect(await redis.zCard(keys.requestsPendingBySender('mallory'))).toBe(2);
    expect(await redis.zCard(keys.requestsByStatus('pending'))).toBe(2);
  });

  it('no limit unless configured', async () => {
    const unlimited = createRedisStores({ redis, keys, teamOf: () => undefined });
    for (let i = 0; i < 5; i++) await unlimited.requests.create(shutdown(`req_${i}`, 'lead'), T0);
    expect(await redis.zCard(keys.requestsPendingBySender('lead'))).toBe(5);
  });
});

describe('inbox bytes and requests', () => {
  it('withdrawing a request message takes its bytes off the inbox count', async () => {
    await stores.requests.create(shutdown('req_w', 'lead', 'alice'), T0);
    expect(Number(await redis.hGet(keys.inboxIds('alice'), '#bytes'))).toBeGreaterThan(0);
    await stores.requests.decide('req_w', { request_id: 'req_w', type: 'shutdown_response', approve: true }, OP, T0 + 1);
    expect(Number(await redis.hGet(keys.inboxIds('alice'), '#bytes'))).toBe(0);
    expect(await redis.xLen(keys.inbox('alice'))).toBe(0);
  });
});
