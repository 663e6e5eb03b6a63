/**
 * The split scripts on a real 3-master Redis Cluster (tools/embedded-redis startRedisCluster,
 * started here): the hook path (open and decide on the hook's own tag), requests (the
 * compare-and-set on the request's tag) and presence (the agent's entry), each followed by
 * follow-ups on other tags. A crash between the deciding part and the follow-ups loses no decision
 * and no request state, and the next call on the same entity (the "not first" answer) writes what
 * was missing; at most a log line is lost. The partial drill-down of a hook without signals reads
 * its summary from the hook's own tag and its context from a replay-log bucket on another.
 */
import { startRedisCluster, type RedisClusterHandle } from '@ahp/embedded-redis';
import { createRequest, isPolicyDrillDown, type HookDecision } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TooManyRequestsError, connectRedis, createHookDetailStore, createKeys, createRedisStores, createReplayLog, keySlot, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { LuaScript } from '../src/lua.js';
import { CAS_REQUEST_CORE_LUA } from '../src/scripts/cas-request.lua.js';
import { DECIDE_HOOK_CORE_LUA } from '../src/scripts/decide-hook-split.lua.js';
import { PRESENCE_CONNECT_CORE_LUA } from '../src/scripts/presence-connect.lua.js';
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

  it('keeps the summary of a hook without signals on its own tag and reads the partial drill-down back, context from the replay log', async () => {
    const hookId = randomUUID();
    await open(hookId);
    const now = Date.now();
    const context = { tool: { name: 'Bash', input: { command: 'ls' } } };
    const oracles = [{ oracle: 'rules', outcome: 'answered' as const, duration_ms: 0.3, signals: 0 }];
    const decision = makeDecision(hookId);
    await stores.hooks.decide(hookId, decision, now + 3, { evaluation: { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: now + 1, pickedAt: now + 2, context, oracles } });
    expect(await redis.hExists(keys.hook(hookId), 'summary')).toBe(1);
    await createReplayLog({ redis, keys }).append({ hookId, trigger: 'pre-tool-use', agent: { id: 'agent-1', name: 'Agent one' }, sessionId: 'session-1', context, decision, configVersion: undefined, at: now + 3 });
    const drill = await createHookDetailStore({ redis, keys }).read(hookId);
    if (drill === null || isPolicyDrillDown(drill)) throw new Error('expected the partial drill-down of an evaluated hook');
    expect(drill.partial?.reason).toBe('no_signals');
    expect(drill.detail.oracles).toEqual(oracles);
    expect(drill.detail.context).toEqual(context);
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
    // The control signal is owed an answer by the agent, as after an uninterrupted decide.
    expect(await redis.zScore(keys.unansweredSignals('agent-1'), signal.header.id)).not.toBeNull();

    // Replaying again changes nothing but re-delivering the route (receivers tolerate duplicates).
    await stores.hooks.decide(hookId, decided, Date.now());
    expect(await logLinesOf(hookId)).toBe(1);
  });
});

/**
 * `client` as a process that dies right after `script` returned: every later command fails, so
 * what the caller would have written after the deciding part is never written.
 */
function crashingAfter(client: RedisClient, script: LuaScript): RedisClient {
  let crashed = false;
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (crashed) throw new Error('process crashed');
        const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if ((property === 'evalSha' && args[0] === script.sha) || (property === 'eval' && args[0] === script.source)) crashed = true;
        return result;
      };
    },
  });
}

describe('requests on a Redis Cluster', () => {
  const casCore = new LuaScript('cas-request-core', CAS_REQUEST_CORE_LUA);
  const T0 = Date.now();

  function planOf(requestId: string) {
    return createRequest({
      requestId,
      sender: 'alice',
      target: { kind: 'agent', agent: 'lead' },
      now: new Date(T0).toISOString(),
      deadline: new Date(T0 + 3_600_000).toISOString(),
      type: 'plan_approval',
      payload: { plan: { title: 'Speed up the DB', steps: [{ id: 's1', description: 'add an index', dependencies: [], status: 'pending', tools_expected: ['Bash'] }] } },
    });
  }

  async function auditLines(requestId: string): Promise<string[]> {
    const entries = await redis.xRange(keys.requestEvents, '-', '+');
    return (entries ?? []).filter((entry) => entry.message['request_id'] === requestId).map((entry) => String(entry.message['event']));
  }

  it('after a crash between the compare-and-set and the follow-ups, the request stands and the next call on it writes the indexes, gate and inbox messages', async () => {
    const requestId = `req_${randomUUID().slice(0, 8)}`;
    const state = planOf(requestId);
    const crashing = createRedisStores({ redis: crashingAfter(redis, casCore), keys });
    await expect(crashing.requests.create(state, T0)).rejects.toThrow('process crashed');

    // The request is complete on its own tag, its follow-ups stored beside it; nothing else exists yet.
    expect(await stores.requests.get(requestId)).toMatchObject({ state, history: [{ event: 'created', status: 'pending' }] });
    expect(await redis.hExists(keys.request(requestId), 'followups')).toBe(1);
    expect(await redis.zScore(keys.requestsAll, requestId)).toBeNull();
    expect(await redis.sIsMember(keys.planGate('alice'), requestId)).toBe(0);
    expect(await stores.inboxes.pending('lead')).toEqual([]);

    // The sender re-sends the create: not first, and the follow-ups are replayed.
    expect(await stores.requests.create(state, T0)).toEqual({ created: false, state });
    expect(await redis.hExists(keys.request(requestId), 'followups')).toBe(0);
    expect(await redis.zScore(keys.requestsAll, requestId)).toBe(T0);
    expect(await redis.zScore(keys.requestsByStatus('pending'), requestId)).toBe(T0);
    expect(await redis.zScore(keys.requestDeadlines, requestId)).toBe(T0 + 3_600_000);
    expect(await redis.sIsMember(keys.planGate('alice'), requestId)).toBe(1);
    const requestMessages = (await stores.inboxes.pending('lead')).map((entry) => entry.message);
    expect(requestMessages).toMatchObject([{ type: 'plan_approval_request', metadata: { request_id: requestId } }]);
    // The crash lost the 'created' audit line, and only that.
    expect(await auditLines(requestId)).toEqual([]);

    // A decision crashes the same way; the decision stands, and repeating it repairs the rest.
    const approve = { request_id: requestId, type: 'plan_approval_response' as const, approve: true };
    const crashingAgain = createRedisStores({ redis: crashingAfter(redis, casCore), keys });
    await expect(crashingAgain.requests.decide(requestId, approve, { kind: 'agent', id: 'lead' }, T0 + 1_000)).rejects.toThrow('process crashed');
    expect((await stores.requests.get(requestId))?.state).toMatchObject({ status: 'approved', decided_by: 'lead' });
    expect(await redis.sIsMember(keys.planGate('alice'), requestId)).toBe(1);

    const again = await stores.requests.decide(requestId, approve, { kind: 'agent', id: 'lead' }, T0 + 2_000);
    expect(again).toMatchObject({ outcome: 'already_decided', state: { status: 'approved' } });
    expect(await redis.sIsMember(keys.planGate('alice'), requestId)).toBe(0);
    expect(await redis.hGet(keys.planVerdict('alice'), 'status')).toBe('approved');
    expect(await redis.zScore(keys.requestsByStatus('pending'), requestId)).toBeNull();
    expect(await redis.zScore(keys.requestsByStatus('approved'), requestId)).toBe(T0);
    expect(await redis.zScore(keys.requestDeadlines, requestId)).toBeNull();
    expect(await redis.zCard(keys.requestRetention)).toBeGreaterThan(0);
    // The request message is withdrawn, the sender has the response, each once.
    expect(await stores.inboxes.pending('lead')).toEqual([]);
    expect((await stores.inboxes.pending('alice')).map((entry) => entry.message)).toMatchObject([{ type: 'plan_approval_response', metadata: { request_id: requestId, approve: true } }]);
    await stores.requests.decide(requestId, approve, { kind: 'agent', id: 'lead' }, T0 + 3_000);
    expect(await stores.inboxes.pending('alice')).toHaveLength(1);
    expect(await auditLines(requestId)).toEqual([]);
  });
});

describe('pending requests per sender on a Redis Cluster', () => {
  function shutdownOf(requestId: string, sender: string, now: number) {
    return createRequest({ requestId, sender, target: { kind: 'operators' }, now: new Date(now).toISOString(), type: 'shutdown', payload: { reason: 'done' } });
  }

  it('concurrent creates of one sender never pass the limit (reserved on the sender tag); a re-sent one is answered', async () => {
    const capped = createRedisStores({ redis, keys, maxPendingRequestsPerAgent: 3 });
    const sender = `mallory-${randomUUID().slice(0, 8)}`;
    const now = Date.now();
    const states = Array.from({ length: 20 }, (_, i) => shutdownOf(`req_${randomUUID().slice(0, 8)}-${i}`, sender, now));
    const results = await Promise.allSettled(states.map((state) => capped.requests.create(state, now)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    expect(results.every((result) => result.status === 'fulfilled' || result.reason instanceof TooManyRequestsError)).toBe(true);
    expect(await redis.zCard(keys.requestsPendingBySender(sender))).toBe(3);
    const stored = states.find((_, i) => results[i]?.status === 'fulfilled');
    if (stored === undefined) throw new Error('nothing created');
    expect(await capped.requests.create(stored, now)).toEqual({ created: false, state: stored });
  });

  it('at the limit, frees a place a writer reserved and never filled (it died in between) once it is old enough', async () => {
    const capped = createRedisStores({ redis, keys, maxPendingRequestsPerAgent: 1 });
    const sender = `bob-${randomUUID().slice(0, 8)}`;
    const now = Date.now();
    await redis.zAdd(keys.requestsPendingBySender(sender), { score: now - 1_000, value: 'req_recent-orphan' });
    await expect(capped.requests.create(shutdownOf(`req_${randomUUID().slice(0, 8)}`, sender, now), now)).rejects.toBeInstanceOf(TooManyRequestsError);
    await redis.zAdd(keys.requestsPendingBySender(sender), { score: now - 120_000, value: 'req_recent-orphan' });
    const state = shutdownOf(`req_${randomUUID().slice(0, 8)}`, sender, now);
    expect(await capped.requests.create(state, now)).toEqual({ created: true, state });
    expect(await redis.zRange(keys.requestsPendingBySender(sender), 0, -1)).toEqual([state.request_id]);
  });
});

describe('requests on a Redis Cluster, nobody reading them again', () => {
  it('runs the follow-ups a crashed writer owed from expireDue, once the transition is older than the sweep delay', async () => {
    const casCore = new LuaScript('cas-request-core', CAS_REQUEST_CORE_LUA);
    const now = Date.now();
    const requestId = `req_${randomUUID().slice(0, 8)}`;
    const state = createRequest({ requestId, sender: 'lead', target: { kind: 'agent', agent: 'carol' }, now: new Date(now).toISOString(), type: 'shutdown', payload: { reason: 'done' } });
    const crashing = createRedisStores({ redis: crashingAfter(redis, casCore), keys });
    await expect(crashing.requests.create(state, now)).rejects.toThrow('process crashed');
    expect(await redis.zScore(keys.requestFollowUps, requestId)).toBe(now);

    // Too recent: the writer may still be running its follow-ups.
    await stores.requests.expireDue(now + 1_000);
    expect(await redis.zScore(keys.requestsAll, requestId)).toBeNull();

    await stores.requests.expireDue(now + 31_000);
    expect(await redis.zScore(keys.requestsAll, requestId)).toBe(now);
    expect((await stores.inboxes.pending('carol')).map((entry) => entry.message)).toMatchObject([{ type: 'shutdown_request', metadata: { request_id: requestId } }]);
    expect(await redis.hExists(keys.request(requestId), 'followups')).toBe(0);
    expect(await redis.zScore(keys.requestFollowUps, requestId)).toBeNull();
  });

  it('leaves nothing in the sweep set after a transition that ran to the end', async () => {
    const now = Date.now();
    const requestId = `req_${randomUUID().slice(0, 8)}`;
    const state = createRequest({ requestId, sender: 'lead', target: { kind: 'operators' }, now: new Date(now).toISOString(), type: 'shutdown', payload: { reason: 'done' } });
    expect(await stores.requests.create(state, now)).toEqual({ created: true, state });
    expect(await stores.requests.create(state, now)).toEqual({ created: false, state });
    expect(await redis.zScore(keys.requestFollowUps, requestId)).toBeNull();
  });
});

describe('presence on a Redis Cluster', () => {
  it('after a crash between the entry and the index, the newest connection stands and its next touch lists it', async () => {
    const core = new LuaScript('presence-connect-core', PRESENCE_CONNECT_CORE_LUA);
    const now = Date.now();
    const iso = new Date(now).toISOString();
    const entry = { agent: { id: 'agent-crash', name: 'agent-crash' }, session_id: 's1', gateway_id: 'gw-a', connected_at: iso, last_activity_at: iso };
    const crashing = createRedisStores({ redis: crashingAfter(redis, core), keys });
    await expect(crashing.presence.connect(entry, 60_000, now)).rejects.toThrow('process crashed');
    expect(await redis.hGet(keys.presenceAgent('agent-crash'), 'session_id')).toBe('s1');
    expect((await stores.presence.list(now)).map((listed) => listed.agent.id)).not.toContain('agent-crash');

    expect(await stores.presence.touch([{ agentId: 'agent-crash', sessionId: 's1', at: now + 1 }], 60_000, now + 1)).toBe(1);
    expect((await stores.presence.list(now + 1)).map((listed) => listed.agent.id)).toContain('agent-crash');
  });
});
