/**
 * The split hook path on a real 3-master Redis Cluster (tools/embedded-redis startRedisCluster,
 * started here): open and decide run on the hook's own tag, their follow-ups on other tags; a
 * crash between the deciding part and the follow-ups loses no decision, and the next decide of the
 * same hook (the "not first" answer) writes what was missing.
 */
import { startRedisCluster, type RedisClusterHandle } from '@ahp/embedded-redis';
import type { HookDecision } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, createKeys, createRedisStores, keySlot, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { LuaScript } from '../src/lua.js';
import { DECIDE_HOOK_CORE_LUA } from '../src/scripts/decide-hook-split.lua.js';
import { makeDecision, makeSignal, randomUUID, recordingLogger } from './support.js';

let cluster: RedisClusterHandle;
let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  redis = await connectRedis({ clusterNodes: cluster.nodeList, name: 'store-test:cluster-split', logger: recordingLogger() });
  keys = createKeys({ prefix: `ahp:test:split:${randomUUID().slice(0, 8)}` });
  stores = createRedisStores({ redis, keys, decisionTtlMs: 60_000, signalTtlMs: 60_000 });
});
afterAll(async () => {
  await redis?.close();
  await cluster?.stop();
});

async function open(hookId: string, gatewayId = 'gw-a'): Promise<void> {
  const now = Date.now();
  const outcome = await stores.hooks.open({ hookId, agentId: 'agent-1', sessionId: 'session-1', gatewayId, trigger: 'pre-tool-use', now, deadlineAt: now + 5_000 });
  expect(outcome.kind).toBe('created');
}

async function routedTo(gatewayId: string): Promise<HookDecision[]> {
  const entries = await redis.xRange(keys.gatewayDecisions(gatewayId), '-', '+');
  return (entries ?? []).map((entry) => JSON.parse(String(entry.message['decision'])) as HookDecision);
}

async function logLinesOf(hookId: string): Promise<number> {
  const entries = await redis.xRange(keys.signalLog, '-', '+');
  return (entries ?? []).filter((entry) => entry.message['hook_id'] === hookId).length;
}

describe('hook path on a Redis Cluster', () => {
  it('spreads a hook, its signals, the log and the route over several slots, and still decides first-writer-wins', async () => {
    const hookId = randomUUID();
    const signal = makeSignal('block');
    const slots = new Set([keySlot(keys.hook(hookId)), keySlot(keys.signal(signal.header.id)), keySlot(keys.signalLog), keySlot(keys.gatewayDecisions('gw-a'))]);
    expect(slots.size).toBeGreaterThan(1);

    await open(hookId);
    const first = makeDecision(hookId, [signal]);
    const results = await Promise.all([stores.hooks.decide(hookId, first, Date.now()), stores.hooks.decide(hookId, makeDecision(hookId, [makeSignal('aid')]), Date.now())]);
    expect(results.filter((result) => result.first)).toHaveLength(1);
    const winner = results.find((result) => result.first)?.decision;
    for (const result of results) expect(result.decision).toEqual(winner);
    const winningSignal = winner?.signals[0];
    expect(await redis.hGet(keys.signal(winningSignal?.header.id ?? ''), 'hook_id')).toBe(hookId);
    // One log line per signal of the winner, however many deciders replayed the follow-ups.
    expect(await logLinesOf(hookId)).toBe(1);
    expect((await routedTo('gw-a')).every((decision) => decision.hook_id !== hookId || JSON.stringify(decision) === JSON.stringify(winner))).toBe(true);
  });

  it('after a crash between the deciding part and the follow-ups, the decision stands and a later decide writes the signal record, the log line and the route', async () => {
    const hookId = randomUUID();
    await open(hookId, 'gw-crash');
    const signal = makeSignal('control');
    const decided = makeDecision(hookId, [signal]);
    // The process "crashes" right after decide-hook-core: only the hook hash was written.
    const core = new LuaScript('decide-hook-core', DECIDE_HOOK_CORE_LUA);
    const now = Date.now();
    await core.run(redis, [keys.hook(hookId)], [JSON.stringify(decided), now, 60_000, decided.trigger]);
    expect(await redis.exists(keys.signal(signal.header.id))).toBe(0);
    expect(await logLinesOf(hookId)).toBe(0);
    expect(await routedTo('gw-crash')).toEqual([]);
    // The decision is already the hook's: the gateway reading the hook sees it.
    expect((await stores.hooks.get(hookId))?.decision).toEqual(decided);

    // A retry (or a second worker) decides something else: not first, the stored decision comes
    // back, and its follow-ups are replayed.
    const retry = await stores.hooks.decide(hookId, makeDecision(hookId, [makeSignal('aid')]), Date.now());
    expect(retry).toEqual({ decision: decided, first: false });
    expect(await redis.hGetAll(keys.signal(signal.header.id))).toMatchObject({ hook_id: hookId, agent_id: 'agent-1', session_id: 'session-1', intensity: 'control' });
    expect(await logLinesOf(hookId)).toBe(1);
    expect(await routedTo('gw-crash')).toEqual([decided]);
    // The control signal is owed an answer by the session, as after an uninterrupted decide.
    expect(await redis.zScore(keys.unansweredSignals('session-1'), signal.header.id)).not.toBeNull();

    // Replaying again changes nothing but re-delivering the route (receivers tolerate duplicates).
    await stores.hooks.decide(hookId, decided, Date.now());
    expect(await logLinesOf(hookId)).toBe(1);
  });
});
