/**
 * Requests and inboxes across a Redis restart, on a private Redis with its append-only file
 * (restarting the run's shared server would disturb the suites running beside this one).
 */
import { provideRedis, type RedisHandle } from '@ahp/embedded-redis';
import { createRequest } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStores, type RedisClient } from '../src/index.js';
import { openClient, randomUUID, testKeys } from './support.js';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');

let server: RedisHandle;
let client: RedisClient;

beforeAll(async () => {
  server = await provideRedis({ mode: 'ephemeral' });
  client = await openClient('store-test:request-durability', server.url);
});
afterAll(async () => {
  await client?.close();
  await server?.stop();
});

describe('after a Redis restart', () => {
  it('still holds a pending plan approval (decidable, still gating) and an unacknowledged message', async () => {
    const keys = testKeys('request-durability');
    const stores = createRedisStores({ redis: client, keys });
    const now = new Date(T0).toISOString();
    const state = createRequest({
      requestId: 'req_durable',
      sender: 'alice',
      target: { kind: 'agent', agent: 'lead' },
      now,
      type: 'plan_approval',
      payload: { plan: { title: 'Migrate', steps: [{ id: 's1', description: 'copy the rows', dependencies: [], status: 'pending', tools_expected: [] }] } },
    });
    await stores.requests.create(state, T0);
    const note = await stores.inboxes.send({ id: randomUUID(), from: 'bob', to: 'alice', content: 'see you', type: 'message', metadata: {}, sent_at: now }, T0);

    await server.restart();

    // Commands wait in node-redis's offline queue until the client has reconnected.
    expect((await stores.requests.get('req_durable'))?.state).toEqual(state);
    expect(await stores.inboxes.pending('alice')).toEqual([note]);
    const hook = { agentId: 'alice', sessionId: 's1', gatewayId: 'gw-a', trigger: 'pre-tool-use' as const, now: Date.now(), deadlineAt: Date.now() + 5_000 };
    expect(await stores.hooks.open({ ...hook, hookId: randomUUID() })).toEqual({ kind: 'gated', requestId: 'req_durable' });

    const decided = await stores.requests.decide('req_durable', { request_id: 'req_durable', type: 'plan_approval_response', approve: true }, { kind: 'agent', id: 'lead' }, T0 + 1);
    expect(decided.outcome).toBe('applied');
    expect((await stores.inboxes.pending('alice')).map((entry) => entry.message.type)).toEqual(['message', 'plan_approval_response']);
    expect((await stores.hooks.open({ ...hook, hookId: randomUUID() })).kind).toBe('created');
  });
});
