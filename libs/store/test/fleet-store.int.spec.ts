/**
 * FleetStore, HealthStore and the live tail against the run's Redis: field-wise merge, ownership
 * of the offline mark, status crossed with presence, retention, the live stream and its tail.
 */
import type { OperatorLiveEvent, PresenceEntry } from '@ahp/protocol';
import { LATENCY_BUCKET_BOUNDS_MS, createRequest } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FLEET_READ_FULL_EVERY_MS, createFleetStore, createHealthStore, createLiveTail, createRedisStores, rowToFleetAgent, type FleetStore, type RedisClient, type StoreKeys } from '../src/index.js';
import { openClient, testKeys } from './support.js';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const HOOK = '0b5f0d0e-8c1a-4c59-9d57-2f3b1b1f3c11';
const alice = { id: 'alice', name: 'Alice', team: 'core', role: 'teammate' as const };
const silent = { debug() {}, info() {}, warn() {}, error() {} };

let redis: RedisClient;
let keys: StoreKeys;
let fleet: FleetStore;

beforeAll(async () => {
  redis = await openClient('store-test:fleet');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  fleet = createFleetStore({ redis, keys, retentionMs: 60_000 });
});

/** `client`, noting the name of every method called on it (each is one command or script call, one round trip). */
function counting(client: RedisClient, calls: string[]): RedisClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

function presence(agentId: string, gatewayId: string, at: number): PresenceEntry {
  const iso = new Date(at).toISOString();
  return { agent: { id: agentId, name: agentId }, session_id: 's1', gateway_id: gatewayId, connected_at: iso, last_activity_at: iso };
}

describe('FleetStore', () => {
  it('shows a connected agent, then working after a hook, then idle once the window passed', async () => {
    const row = await fleet.connect({ agent: alice, gatewayId: 'gw-a', sessionId: 's1', connectedAt: T0, now: T0 });
    expect(row).toMatchObject({ agent: alice, status: 'connected', gateway_id: 'gw-a', session_id: 's1', hooks_in_flight: 0 });

    const hookAt = new Date(T0 + 1000).toISOString();
    const working = await fleet.activity({
      agentId: 'alice',
      gatewayId: 'gw-a',
      now: T0 + 1000,
      lastHook: { hook_id: HOOK, trigger: 'pre-tool-use', tool: 'bash', at: hookAt },
      hooksInFlight: 1,
    });
    expect(working).toMatchObject({ status: 'working', hooks_in_flight: 1, last_hook: { tool: 'bash' } });

    await fleet.activity({
      agentId: 'alice',
      gatewayId: 'gw-a',
      now: T0 + 1010,
      lastDecision: { hook_id: HOOK, allowed: true, intensity: null, decided_by: 'oracles', at: hookAt },
      hooksInFlight: 0,
    });
    const [later] = await fleet.list(T0 + 40_000, [presence('alice', 'gw-a', T0)]);
    expect(later).toMatchObject({ status: 'idle', last_hook: { hook_id: HOOK }, last_decision: { allowed: true } });
  });

  it('keeps the last hook when the agent moves to another gateway, and ignores the old gateway’s late close', async () => {
    await fleet.connect({ agent: alice, gatewayId: 'gw-a', sessionId: 's1', connectedAt: T0, now: T0 });
    await fleet.activity({ agentId: 'alice', gatewayId: 'gw-a', now: T0 + 1, lastHook: { hook_id: HOOK, trigger: 'pre-tool-use', at: new Date(T0 + 1).toISOString() } });
    await fleet.connect({ agent: alice, gatewayId: 'gw-b', sessionId: 's1', connectedAt: T0 + 5, now: T0 + 5 });
    // gw-a still reports a hook of the old connection finishing: its in-flight count is not taken.
    await fleet.activity({ agentId: 'alice', gatewayId: 'gw-a', now: T0 + 6, hooksInFlight: 3 });
    const afterLateClose = await fleet.disconnect({ agentId: 'alice', gatewayId: 'gw-a', now: T0 + 7 });
    expect(afterLateClose).toMatchObject({ gateway_id: 'gw-b', hooks_in_flight: 0, last_hook: { hook_id: HOOK } });
    expect(afterLateClose?.status).not.toBe('offline');

    const offline = await fleet.disconnect({ agentId: 'alice', gatewayId: 'gw-b', now: T0 + 8 });
    expect(offline).toMatchObject({ status: 'offline', hooks_in_flight: 0 });
    expect(offline?.gateway_id).toBeUndefined();
  });

  it('lists a row whose gateway died as offline, and drops rows past retention', async () => {
    await fleet.connect({ agent: alice, gatewayId: 'gw-dead', sessionId: 's1', connectedAt: T0, now: T0 });
    await fleet.connect({ agent: { id: 'bob', name: 'Bob' }, gatewayId: 'gw-a', sessionId: 's2', connectedAt: T0 + 30_000, now: T0 + 30_000 });
    const rows = await fleet.list(T0 + 31_000, [presence('bob', 'gw-a', T0 + 30_000)]);
    expect(rows.map((r) => [r.agent.id, r.status])).toEqual([
      ['alice', 'offline'],
      ['bob', 'connected'],
    ]);
    expect((await fleet.list(T0 + 61_000, [presence('bob', 'gw-a', T0 + 30_000)])).map((r) => r.agent.id)).toEqual(['bob']);
  });

  it('returns null for activity of an agent without a row and leaves nothing behind', async () => {
    expect(await fleet.activity({ agentId: 'ghost', gatewayId: 'gw-a', now: T0, hooksInFlight: 1 })).toBeNull();
    expect(await redis.exists(keys.fleetAgent('ghost'))).toBe(0);
    expect(await fleet.list(T0, [])).toEqual([]);
  });

  it('writes a flush of many agents in one round trip (one per agent and one for the index on a cluster), the same rows as one at a time', async () => {
    const one = fleet;
    const manyKeys = testKeys('fleet flush batched');
    const many = createFleetStore({ redis, keys: manyKeys, retentionMs: 60_000 });
    const agents = ['alice', 'bob', 'carol', 'dave'].map((id) => ({ id, name: id }));
    for (const store of [one, many]) {
      for (const agent of agents) await store.connect({ agent, gatewayId: 'gw-a', sessionId: `s-${agent.id}`, connectedAt: T0, now: T0 });
      // dave moved to gw-b: gw-a's in-flight count for him is not taken.
      await store.connect({ agent: agents[3]!, gatewayId: 'gw-b', sessionId: 's-dave-2', connectedAt: T0 + 1, now: T0 + 1 });
    }
    const at = (ms: number) => new Date(T0 + ms).toISOString();
    const flush = [
      { agentId: 'alice', now: T0 + 10, lastHook: { hook_id: HOOK, trigger: 'pre-tool-use' as const, tool: 'bash', at: at(10) }, hooksInFlight: 1 },
      { agentId: 'bob', now: T0 + 11, lastDecision: { hook_id: HOOK, allowed: false, intensity: 'block' as const, decided_by: 'oracles' as const, at: at(11) }, hooksInFlight: 0 },
      { agentId: 'carol', now: T0 + 12, lastRefusal: { hook_id: HOOK, trigger: 'pre-tool-use' as const, code: 'E_SIGNAL_UNANSWERED', signal_ids: [HOOK], at: at(12) } },
      { agentId: 'dave', now: T0 + 13, hooksInFlight: 5 },
      { agentId: 'ghost', now: T0 + 14, hooksInFlight: 1 },
    ];
    const alone = [];
    for (const input of flush) alone.push(await one.activity({ ...input, gatewayId: 'gw-a' }));

    const calls: string[] = [];
    const counted = createFleetStore({ redis: counting(redis, calls), keys: manyKeys, retentionMs: 60_000 });
    const batched = await counted.activityBatch('gw-a', flush);
    const cluster = 'masters' in redis;
    // (An `eval` after NOSCRIPT loads the script once per server, not once per flush.)
    expect(calls.filter((call) => call !== 'eval')).toEqual(cluster ? [...flush.map(() => 'evalSha'), 'zAdd', 'zRem'] : ['evalSha']);

    expect(batched).toEqual(alone);
    expect(batched[3]).toMatchObject({ gateway_id: 'gw-b', hooks_in_flight: 0 });
    expect(batched[4]).toBeNull();
    for (const input of flush) {
      // The rows returned (the live events) are what Redis now holds, field for field.
      const stored = await redis.hGetAll(manyKeys.fleetAgent(input.agentId));
      expect(stored).toEqual(await redis.hGetAll(keys.fleetAgent(input.agentId)));
      const row = batched[flush.indexOf(input)];
      if (row) expect(rowToFleetAgent(stored, 'k', input.now, undefined)).toEqual(row);
      const ttl = await redis.pTTL(manyKeys.fleetAgent(input.agentId));
      if (input.agentId === 'ghost') expect(ttl).toBe(-2);
      else expect(ttl).toBeGreaterThan(0);
    }
    expect(await redis.zRangeWithScores(manyKeys.fleetAgents, 0, -1)).toEqual(await redis.zRangeWithScores(keys.fleetAgents, 0, -1));
    expect(await redis.exists(manyKeys.fleetAgent('ghost'))).toBe(0);
  });

  it('a reader fetches only the rows written since its last read, yet sees every change, removal and status of the moment', async () => {
    const calls: string[] = [];
    const reader = createFleetStore({ redis: counting(redis, calls), keys, retentionMs: 60_000 }).reader();
    for (const id of ['a1', 'a2', 'a3']) await fleet.connect({ agent: { id, name: id }, gatewayId: 'gw-a', sessionId: `s-${id}`, connectedAt: T0, now: T0 });
    const here = ['a1', 'a2', 'a3'].map((id) => presence(id, 'gw-a', T0));

    const first = await reader.read(T0 + 10_000, here);
    expect(first.map((row) => [row.agent.id, row.status])).toEqual([['a1', 'connected'], ['a2', 'connected'], ['a3', 'connected']]);
    expect(calls.filter((name) => name === 'hGetAll')).toHaveLength(3);

    // Nothing written: the index alone, and statuses still follow the clock and presence.
    calls.length = 0;
    const quiet = await reader.read(T0 + 20_000, here.slice(0, 2));
    expect(calls.filter((name) => name === 'hGetAll')).toHaveLength(0);
    expect(quiet.map((row) => [row.agent.id, row.status])).toEqual([['a1', 'connected'], ['a2', 'connected'], ['a3', 'offline']]);

    // One row written, one gone past retention: one fetch, and the gone row is dropped.
    await fleet.activity({ agentId: 'a2', gatewayId: 'gw-a', now: T0 + 28_000, lastHook: { hook_id: HOOK, trigger: 'pre-tool-use', tool: 'bash', at: new Date(T0 + 28_000).toISOString() }, hooksInFlight: 1 });
    await redis.zAdd(keys.fleetAgents, { score: T0 - 120_000, value: 'a3' });
    calls.length = 0;
    const changed = await reader.read(T0 + 30_000, here);
    expect(calls.filter((name) => name === 'hGetAll')).toHaveLength(1);
    expect(changed.map((row) => [row.agent.id, row.status, row.last_hook?.tool])).toEqual([['a1', 'connected', undefined], ['a2', 'working', 'bash']]);
    expect(changed).toEqual(await fleet.list(T0 + 30_000, here));

    // A second write in the millisecond of the first (the score does not move) is still seen: rows written near the last read are fetched again.
    await redis.hSet(keys.fleetAgent('a2'), 'hooks_in_flight', '4');
    const same = await reader.read(T0 + 31_000, here);
    expect(same.find((row) => row.agent.id === 'a2')?.hooks_in_flight).toBe(4);
  });

  it('a reader fetches every row again once a full read is due, and refuses a corrupt row like list does', async () => {
    const calls: string[] = [];
    const reader = createFleetStore({ redis: counting(redis, calls), keys, retentionMs: 10 * FLEET_READ_FULL_EVERY_MS }).reader();
    await fleet.connect({ agent: alice, gatewayId: 'gw-a', sessionId: 's1', connectedAt: T0, now: T0 });
    await reader.read(T0 + 10_000, []);
    calls.length = 0;
    await reader.read(T0 + 10_000 + FLEET_READ_FULL_EVERY_MS, []);
    expect(calls.filter((name) => name === 'hGetAll')).toHaveLength(1);

    await redis.hSet(keys.fleetAgent('alice'), 'last_hook', '{not json');
    await redis.zAdd(keys.fleetAgents, { score: T0 + 20_000, value: 'alice' });
    await expect(reader.read(T0 + 20_000 + FLEET_READ_FULL_EVERY_MS, [])).rejects.toThrow(/last_hook/);
  });

  it('refuses invalid input before writing anything', async () => {
    await expect(fleet.connect({ agent: { id: 'bad id!', name: 'x' }, gatewayId: 'gw-a', sessionId: 's', connectedAt: T0, now: T0 })).rejects.toThrow(/invalid agent/);
    await expect(fleet.publishLive([{ kind: 'config', version: 0, at: 'yesterday' } as never])).rejects.toThrow(/invalid live event/);
  });
});

describe('live tail', () => {
  it('delivers live events, request changes and signal hints appended after it started, and nothing before', async () => {
    await fleet.publishLive([{ kind: 'config', version: 1, at: new Date(T0).toISOString() }]);
    const seen: OperatorLiveEvent[] = [];
    const tail = createLiveTail({ redis, keys, logger: silent, blockMs: 200 });
    await tail.start((events) => seen.push(...events));
    try {
      await fleet.publishLive([{ kind: 'config', version: 2, at: new Date(T0).toISOString() }]);
      const stores = createRedisStores({ redis, keys });
      const now = Date.now();
      const at = new Date(now).toISOString();
      await stores.requests.create(
        createRequest({ requestId: 'req_live_1', type: 'shutdown', sender: 'lead', target: { kind: 'agent', agent: 'alice' }, now: at, payload: { reason: 'done' } }),
        now,
      );
      // Garbage in the live stream is skipped, not fatal.
      await redis.xAdd(keys.liveEvents, '*', { event: '{"kind":"nope"}' });
      await fleet.publishLive([{ kind: 'config', version: 3, at: new Date(T0).toISOString() }]);
      await expect.poll(() => seen.map((e) => (e.kind === 'config' ? `config:${e.version}` : e.kind === 'request' ? `request:${e.event}` : e.kind)), { timeout: 5000 }).toEqual([
        'config:2',
        'request:created',
        'config:3',
      ]);
    } finally {
      await tail.stop();
    }
  });
});

describe('HealthStore', () => {
  it('lists live workers, forgets expired ones, and keeps gateway snapshots', async () => {
    const health = createHealthStore({ redis, keys });
    const iso = new Date(T0).toISOString();
    const worker = (id: string) => ({ worker_id: id, hostname: 'h', pid: 1, concurrency: 8, started_at: iso, last_seen_at: iso, jobs_processed: 0 });
    await health.heartbeatWorker(worker('w-1'), 10_000, T0);
    await health.heartbeatWorker(worker('w-2'), 1_000, T0);
    expect((await health.listWorkers(T0 + 500)).map((w) => w.worker_id)).toEqual(['w-1', 'w-2']);
    expect((await health.listWorkers(T0 + 2_000)).map((w) => w.worker_id)).toEqual(['w-1']);
    await health.removeWorker('w-1');
    expect(await health.listWorkers(T0 + 2_000)).toEqual([]);

    const counts = new Array<number>(LATENCY_BUCKET_BOUNDS_MS.length + 1).fill(0);
    counts[3] = 5;
    await health.putGatewayHealth({ gateway_id: 'gw-a', hooks_in_flight: 2, latency_counts: counts, window_ms: 60_000, at: iso }, 10_000);
    expect(await health.gatewayHealth(['gw-a', 'gw-none'])).toEqual([
      { gateway_id: 'gw-a', hooks_in_flight: 2, latency_counts: counts, window_ms: 60_000, at: iso },
    ]);
  });
});
