/**
 * PresenceStore against the run's Redis: newest connection wins, compare-and-delete, expiry by `now`.
 */
import type { GatewayInfo, PresenceEntry } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreDataError, StoreInputError, createRedisStores, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { openClient, testKeys } from './support.js';

const TTL_MS = 30_000;
const T0 = Date.parse('2025-06-01T12:00:00.000Z');

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  redis = await openClient('store-test:presence');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys });
});

function entry(agentId: string, sessionId: string, gatewayId: string, connectedAt: number): PresenceEntry {
  const at = new Date(connectedAt).toISOString();
  return { agent: { id: agentId, name: `Agent ${agentId}` }, session_id: sessionId, gateway_id: gatewayId, connected_at: at, last_activity_at: at };
}

function gateway(gatewayId: string, at: number, connections = 0): GatewayInfo {
  const iso = new Date(at).toISOString();
  return { gateway_id: gatewayId, started_at: iso, last_seen_at: iso, connections, draining: false };
}

describe('PresenceStore: agents', () => {
  it('lets the newest connection win, whatever order the gateways report in', async () => {
    const older = entry('agent-1', 's1', 'gw-a', T0);
    const newer = entry('agent-1', 's2', 'gw-b', T0 + 1_000);
    await stores.presence.connect(older, TTL_MS, T0);
    await stores.presence.connect(newer, TTL_MS, T0 + 1_000);
    expect(await stores.presence.list(T0 + 1_000)).toEqual([newer]);

    // A slow gateway reporting the older connection late does not overwrite the newer one.
    await stores.presence.connect(older, TTL_MS, T0 + 2_000);
    expect(await stores.presence.list(T0 + 2_000)).toEqual([newer]);
  });

  it('keeps the newer entry when the old connection disconnects (other session, or same session on another gateway)', async () => {
    await stores.presence.connect(entry('agent-1', 's1', 'gw-a', T0), TTL_MS, T0);
    const newer = entry('agent-1', 's2', 'gw-b', T0 + 1_000);
    await stores.presence.connect(newer, TTL_MS, T0 + 1_000);
    await stores.presence.disconnect('agent-1', 's1');
    expect(await stores.presence.list(T0 + 1_000)).toEqual([newer]);

    // A resumed session keeps its id: the old gateway names itself and removes nothing.
    const resumed = entry('agent-1', 's2', 'gw-c', T0 + 2_000);
    await stores.presence.connect(resumed, TTL_MS, T0 + 2_000);
    await stores.presence.disconnect('agent-1', 's2', 'gw-b');
    expect(await stores.presence.list(T0 + 2_000)).toEqual([resumed]);

    await stores.presence.disconnect('agent-1', 's2', 'gw-c');
    expect(await stores.presence.list(T0 + 2_000)).toEqual([]);
    expect(await redis.zCard(keys.presenceAgents)).toBe(0);
  });

  it('touch refreshes activity and expiry for the current session only', async () => {
    await stores.presence.connect(entry('agent-1', 's1', 'gw-a', T0), TTL_MS, T0);
    expect(await stores.presence.touch([{ agentId: 'agent-1', sessionId: 'other-session', at: T0 + 20_000 }], TTL_MS, T0 + 20_000)).toBe(0);
    expect(await stores.presence.list(T0 + TTL_MS + 1)).toEqual([]);

    await stores.presence.connect(entry('agent-1', 's1', 'gw-a', T0), TTL_MS, T0);
    expect(await stores.presence.touch([{ agentId: 'agent-1', sessionId: 's1', at: T0 + 19_000 }], TTL_MS, T0 + 20_000)).toBe(1);
    const listed = await stores.presence.list(T0 + TTL_MS + 1);
    expect(listed).toEqual([{ ...entry('agent-1', 's1', 'gw-a', T0), last_activity_at: new Date(T0 + 19_000).toISOString() }]);
  });

  it('touches a batch in one go: each entry of its current session, a batch larger than one script call included', async () => {
    const agents = Array.from({ length: 600 }, (_, i) => `agent-${i}`);
    for (const agentId of agents) await stores.presence.connect(entry(agentId, `s-${agentId}`, 'gw-a', T0), TTL_MS, T0);
    await stores.presence.disconnect('agent-7', 's-agent-7');
    const touches = agents.map((agentId, i) => ({ agentId, sessionId: i === 3 ? 'stale-session' : `s-${agentId}`, at: T0 + 10_000 + i }));

    expect(await stores.presence.touch(touches, TTL_MS, T0 + 20_000)).toBe(598);
    const listed = new Map((await stores.presence.list(T0 + TTL_MS + 1)).map((listed) => [listed.agent.id, listed.last_activity_at]));
    expect(listed.size).toBe(598);
    expect(listed.has('agent-3') || listed.has('agent-7')).toBe(false);
    expect(listed.get('agent-599')).toBe(new Date(T0 + 10_599).toISOString());
    expect(await stores.presence.touch([], TTL_MS, T0 + 20_000)).toBe(0);
  });

  it('lists nothing once now is past the TTL, and prunes the index', async () => {
    await stores.presence.connect(entry('agent-1', 's1', 'gw-a', T0), TTL_MS, T0);
    await stores.presence.connect(entry('agent-2', 's9', 'gw-a', T0), TTL_MS, T0);
    expect(await stores.presence.list(T0 + TTL_MS - 1)).toHaveLength(2);
    expect(await stores.presence.list(T0 + TTL_MS)).toEqual([]);
    expect(await redis.zCard(keys.presenceAgents)).toBe(0);
    expect(await redis.pTTL(keys.presenceAgent('agent-1'))).toBeLessThanOrEqual(TTL_MS);
  });

  it('skips entries whose key is gone, fails on one that does not parse, and validates what it writes', async () => {
    await stores.presence.connect(entry('agent-1', 's1', 'gw-a', T0), TTL_MS, T0);
    await stores.presence.connect(entry('agent-2', 's2', 'gw-a', T0), TTL_MS, T0);
    await redis.del(keys.presenceAgent('agent-1'));
    expect((await stores.presence.list(T0)).map((listed) => listed.agent.id)).toEqual(['agent-2']);

    await redis.hSet(keys.presenceAgent('agent-2'), 'entry', '{"agent":{}}');
    await expect(stores.presence.list(T0)).rejects.toMatchObject({ code: 'E_STORE_DATA', key: keys.presenceAgent('agent-2') });
    await expect(stores.presence.connect({ ...entry('agent-3', 's', 'gw', T0), connected_at: 'yesterday' }, TTL_MS, T0)).rejects.toBeInstanceOf(
      StoreInputError,
    );
  });
});

describe('PresenceStore: gateways', () => {
  it('lists live gateways, forgets removed and expired ones', async () => {
    await stores.presence.heartbeatGateway(gateway('gw-a', T0, 3), TTL_MS, T0);
    await stores.presence.heartbeatGateway(gateway('gw-b', T0), TTL_MS, T0);
    await stores.presence.heartbeatGateway(gateway('gw-a', T0 + 10_000, 5), TTL_MS, T0 + 10_000);
    const listed = await stores.presence.listGateways(T0 + 10_000);
    expect(listed.sort((a, b) => a.gateway_id.localeCompare(b.gateway_id))).toEqual([gateway('gw-a', T0 + 10_000, 5), gateway('gw-b', T0)]);

    await stores.presence.removeGateway('gw-b');
    expect((await stores.presence.listGateways(T0 + 10_000)).map((info) => info.gateway_id)).toEqual(['gw-a']);
    expect(await stores.presence.listGateways(T0 + 10_000 + TTL_MS)).toEqual([]);
    expect(await redis.zCard(keys.presenceGateways)).toBe(0);
  });

  it('fails with StoreDataError on a gateway entry that does not parse', async () => {
    await stores.presence.heartbeatGateway(gateway('gw-a', T0), TTL_MS, T0);
    await redis.set(keys.presenceGateway('gw-a'), '{"gateway_id":"gw-a"}');
    await expect(stores.presence.listGateways(T0)).rejects.toBeInstanceOf(StoreDataError);
  });
});
