/**
 * HookStore against the run's Redis: open, decide (first writer wins, records, log, routing) and
 * read-back safety.
 */
import { failurePolicyDecision, type HookDecision } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  HookNotFoundError,
  StoreDataError,
  StoreInputError,
  createRateLimiter,
  createRedisStores,
  createReplicaAcks,
  isClusterClient,
  REPLICA_ACK_BACKOFF_MS,
  readSignalLog,
  type OpenHookInput,
  type RedisClient,
  type RedisStores,
  type StoreKeys,
} from '../src/index.js';
import { makeDecision, makeSignal, openClient, randomUUID, recordingLogger, testKeys } from './support.js';

const DECISION_TTL_MS = 60_000;
const SIGNAL_TTL_MS = 120_000;

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  redis = await openClient('store-test:hooks');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys, decisionTtlMs: DECISION_TTL_MS, signalTtlMs: SIGNAL_TTL_MS });
});

function openInput(overrides: Partial<OpenHookInput> = {}): OpenHookInput {
  const now = Date.now();
  return {
    hookId: randomUUID(),
    agentId: 'agent-1',
    sessionId: 'session-1',
    gatewayId: 'gw-a',
    trigger: 'pre-tool-use',
    now,
    deadlineAt: now + 5_000,
    ...overrides,
  };
}

/** Decisions routed to a gateway, parsed. */
async function routed(gatewayId: string): Promise<HookDecision[]> {
  const entries = (await redis.xRange(keys.gatewayDecisions(gatewayId), '-', '+')) ?? [];
  return entries.map((entry) => JSON.parse(String(entry.message['decision'])) as HookDecision);
}

describe('open', () => {
  it('creates, then joins with the new gateway as owner, then answers with the stored decision', async () => {
    const first = openInput();
    const created = await stores.hooks.open(first);
    expect(created).toEqual({
      kind: 'created',
      correlation: {
        hook_id: first.hookId,
        agent_id: 'agent-1',
        session_id: 'session-1',
        gateway_id: 'gw-a',
        trigger: 'pre-tool-use',
        status: 'pending',
        created_at: first.now,
        deadline_at: first.deadlineAt,
      },
      leased: 0,
    });

    const joined = await stores.hooks.open({ ...first, gatewayId: 'gw-b', now: first.now + 100, deadlineAt: first.deadlineAt + 60_000 });
    expect(joined.kind).toBe('joined');
    if (joined.kind !== 'joined') return;
    expect(joined.correlation.gateway_id).toBe('gw-b');
    expect(joined.correlation.deadline_at).toBe(first.deadlineAt);
    expect(joined.correlation.created_at).toBe(first.now);

    const decision = makeDecision(first.hookId, [makeSignal('block')]);
    await stores.hooks.decide(first.hookId, decision, first.now + 200);

    const again = await stores.hooks.open({ ...first, gatewayId: 'gw-c', now: first.now + 300 });
    expect(again).toEqual({
      kind: 'decided',
      correlation: expect.objectContaining({ status: 'decided', gateway_id: 'gw-b', decided_at: first.now + 200 }),
      decision,
    });
  });

  it('counts each hook against the agent’s rate limit in the bucket its other frames use, recording nothing when refused', async () => {
    // One token per 20 s: nothing refills while the test runs.
    const rateLimit = { ratePerSecond: 0.05, burst: 3 };
    const frames = createRateLimiter({ redis, keys, kind: 'agent', limit: rateLimit, logger: recordingLogger() });
    expect((await frames.take('agent-1')).allowed).toBe(true);
    expect((await stores.hooks.open(openInput({ rateLimit }))).kind).toBe('created');
    expect((await stores.hooks.open(openInput({ rateLimit }))).kind).toBe('created');
    const refused = openInput({ rateLimit });
    const outcome = await stores.hooks.open(refused);
    expect(outcome.kind).toBe('limited');
    if (outcome.kind !== 'limited') return;
    expect(outcome.retryAfterMs).toBeGreaterThan(0);
    expect(outcome.retryAfterMs).toBeLessThanOrEqual(20_000);
    expect(await redis.exists(keys.hook(refused.hookId))).toBe(0);
    expect((await frames.take('agent-1')).allowed).toBe(false);
    // Another agent's bucket, and hooks opened without a limit, are not affected.
    expect((await stores.hooks.open(openInput({ rateLimit, agentId: 'agent-2' }))).kind).toBe('created');
    expect((await stores.hooks.open(openInput())).kind).toBe('created');
  });

  it('takes a lease from the agent’s bucket with a new hook, and hands it back for any other outcome', async () => {
    // 20 tokens, none refilled while the test runs: the hook takes 1 + a lease of min(8, 20 / 2).
    // Under Cluster the token is taken in a call of its own and no lease is taken.
    const cluster = isClusterClient(redis);
    const rateLimit = { ratePerSecond: 0.01, burst: 20 };
    const rateLease = { upTo: 8, share: 2 };
    const first = openInput({ rateLimit, rateLease });
    expect(await stores.hooks.open(first)).toMatchObject({ kind: 'created', leased: cluster ? 0 : 7 });
    // 12 tokens left; two re-sends (joined) lease 6 and 5, and give all but their own token back.
    expect((await stores.hooks.open({ ...first, gatewayId: 'gw-b' })).kind).toBe('joined');
    expect(await stores.hooks.open({ ...openInput({ rateLimit, rateLease }), hookId: first.hookId, agentId: 'agent-1', sessionId: 'session-2' })).toMatchObject({ kind: 'joined' });
    const frames = createRateLimiter({ redis, keys, kind: 'agent', limit: rateLimit, logger: recordingLogger() });
    const probe = await frames.take('agent-1', 1, { upTo: 100, share: 1 });
    expect(probe).toMatchObject({ allowed: true, granted: cluster ? 17 : 10 });
    // An empty bucket refuses the hook whatever lease it asks for, and records nothing.
    const refused = openInput({ rateLimit, rateLease });
    expect((await stores.hooks.open(refused)).kind).toBe('limited');
    expect(await redis.exists(keys.hook(refused.hookId))).toBe(0);
  });

  it('rejects a lease that is not whole numbers', async () => {
    await expect(stores.hooks.open(openInput({ rateLimit: { ratePerSecond: 1, burst: 5 }, rateLease: { upTo: 0, share: 1 } }))).rejects.toThrow(StoreInputError);
    await expect(stores.hooks.open(openInput({ rateLimit: { ratePerSecond: 1, burst: 5 }, rateLease: { upTo: 2, share: 0.5 } }))).rejects.toThrow(StoreInputError);
  });

  it('with replica acknowledgements asked of a Redis that has no replica, decides anyway, reports the shortfall and stops waiting on it for a while', async () => {
    const logger = recordingLogger();
    let clock = 1_000_000;
    const replicaAcks = createReplicaAcks(redis, { replicas: 1, timeoutMs: 10 }, logger, () => clock);
    const waiting = createRedisStores({ redis, keys, replicaAcks });
    // One hook, decided again and again (an earlier decision stands, and is waited for too): the
    // same master every time, also under Cluster.
    const input = openInput();
    await waiting.hooks.open(input);
    const decideOne = async () => {
      await waiting.hooks.decide(input.hookId, makeDecision(input.hookId), input.now + 1);
      expect((await stores.hooks.get(input.hookId))?.correlation.status).toBe('decided');
    };
    await decideOne();
    expect(replicaAcks).toMatchObject({ shortfalls: 1, waits: 1 });
    expect(logger.lines).toMatchObject([{ level: 'warn', fields: { replicas: 1, acknowledged: 0, backoffMs: REPLICA_ACK_BACKOFF_MS } }]);
    // In the backoff: not waited on (no timeout added to the decision), still counted.
    await decideOne();
    expect(replicaAcks).toMatchObject({ shortfalls: 2, waits: 1 });
    clock += REPLICA_ACK_BACKOFF_MS + 1;
    await decideOne();
    expect(replicaAcks).toMatchObject({ shortfalls: 3, waits: 2 });
  });

  it('refuses a hook id that belongs to another agent, and changes nothing', async () => {
    const first = openInput();
    await stores.hooks.open(first);
    await expect(stores.hooks.open({ ...first, agentId: 'agent-2', gatewayId: 'gw-b' })).resolves.toEqual({ kind: 'foreign' });
    const stored = await stores.hooks.get(first.hookId);
    expect(stored?.correlation).toMatchObject({ agent_id: 'agent-1', gateway_id: 'gw-a', status: 'pending' });
  });

  it('keeps a pending hook until its deadline plus the decision TTL, and a decided one at least for the decision TTL', async () => {
    const input = openInput();
    await stores.hooks.open(input);
    const pendingTtl = await redis.pTTL(keys.hook(input.hookId));
    expect(pendingTtl).toBeGreaterThan(DECISION_TTL_MS);
    expect(pendingTtl).toBeLessThanOrEqual(input.deadlineAt - input.now + DECISION_TTL_MS);

    // Decided by its deadline: the TTL open-hook gave it already covers the decision TTL.
    await stores.hooks.decide(input.hookId, makeDecision(input.hookId), input.now);
    const decidedTtl = await redis.pTTL(keys.hook(input.hookId));
    expect(decidedTtl).toBeGreaterThan(DECISION_TTL_MS - 1_000);
    expect(decidedTtl).toBeLessThanOrEqual(input.deadlineAt - input.now + DECISION_TTL_MS);

    // Decided after it: the decision TTL from then.
    const late = openInput();
    await stores.hooks.open(late);
    await stores.hooks.decide(late.hookId, makeDecision(late.hookId), late.deadlineAt + 1);
    const lateTtl = await redis.pTTL(keys.hook(late.hookId));
    expect(lateTtl).toBeGreaterThan(0);
    expect(lateTtl).toBeLessThanOrEqual(DECISION_TTL_MS);
  });

  it('rejects input that could not be read back, writing nothing', async () => {
    const input = openInput({ hookId: 'not-a-uuid' });
    await expect(stores.hooks.open(input)).rejects.toBeInstanceOf(StoreInputError);
    await expect(stores.hooks.open(openInput({ gatewayId: 'gw {x}' }))).rejects.toMatchObject({ code: 'E_STORE_INPUT' });
    expect(await redis.exists(keys.hook('not-a-uuid'))).toBe(0);
  });
});

describe('decide', () => {
  it('lets exactly one of 25 concurrent decisions win; every caller gets the stored one', async () => {
    const input = openInput();
    await stores.hooks.open(input);
    const candidates = Array.from({ length: 25 }, (_, i) =>
      makeDecision(input.hookId, [makeSignal(i % 2 === 0 ? 'block' : 'control', `oracle-${i}`)]),
    );
    const results = await Promise.all(candidates.map((decision) => stores.hooks.decide(input.hookId, decision, input.now + 10)));

    expect(results.filter((result) => result.first)).toHaveLength(1);
    const winner = results.find((result) => result.first)!.decision;
    for (const result of results) expect(result.decision).toEqual(winner);
    expect((await stores.hooks.get(input.hookId))?.decision).toEqual(winner);

    // Only the winner's signal has a record.
    const winnerSignal = winner.signals[0]!;
    const records = await Promise.all(candidates.map((decision) => stores.signals.get(decision.signals[0]!.header.id)));
    expect(records.filter((record) => record !== null)).toEqual([
      {
        signal_id: winnerSignal.header.id,
        hook_id: input.hookId,
        agent_id: 'agent-1',
        session_id: 'session-1',
        trigger: 'pre-tool-use',
        intensity: winnerSignal.header.intensity,
        source: winnerSignal.header.source,
        type: winnerSignal.header.type,
      },
    ]);

    // Every call routes the stored decision (duplicates are the receiver's to drop).
    const decisions = await routed('gw-a');
    expect(decisions).toHaveLength(25);
    for (const decision of decisions) expect(decision).toEqual(winner);
  });

  it('records every signal, logs it, and expires the records after the signal TTL', async () => {
    const input = openInput();
    await stores.hooks.open(input);
    const signals = [makeSignal('block'), makeSignal('control'), makeSignal('control', 'second-oracle')];
    const decision = makeDecision(input.hookId, signals);
    const now = input.now + 50;
    await expect(stores.hooks.decide(input.hookId, decision, now)).resolves.toEqual({ decision, first: true });

    for (const signal of signals) {
      const record = await stores.signals.get(signal.header.id);
      expect(record).toMatchObject({ signal_id: signal.header.id, hook_id: input.hookId, intensity: signal.header.intensity });
      const ttl = await redis.pTTL(keys.signal(signal.header.id));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(SIGNAL_TTL_MS);
    }

    const log = await readSignalLog(redis, keys);
    expect(log.map((line) => line.entry)).toEqual(
      signals.map((signal) => ({
        timestamp: new Date(now).toISOString(),
        hook: 'pre-tool-use',
        intensity: signal.header.intensity,
        source: signal.header.source,
        consumed: false,
        signal_id: signal.header.id,
        hook_id: input.hookId,
        type: signal.header.type,
      })),
    );
    expect(log.every((line) => line.kind === 'signal' && line.agentId === 'agent-1' && line.sessionId === 'session-1')).toBe(true);
  });

  it("routes to the owner's stream, and to the new owner after open moved the hook", async () => {
    const stays = openInput();
    await stores.hooks.open(stays);
    const stayingDecision = makeDecision(stays.hookId);
    await stores.hooks.decide(stays.hookId, stayingDecision, stays.now);
    expect(await routed('gw-a')).toEqual([stayingDecision]);

    const moves = openInput();
    await stores.hooks.open(moves);
    await stores.hooks.open({ ...moves, gatewayId: 'gw-b' });
    const movedDecision = makeDecision(moves.hookId, [makeSignal('control')]);
    await stores.hooks.decide(moves.hookId, movedDecision, moves.now);
    expect(await routed('gw-b')).toEqual([movedDecision]);
    expect(await routed('gw-a')).toEqual([stayingDecision]);
    expect(await redis.pTTL(keys.gatewayDecisions('gw-b'))).toBeGreaterThan(0);
  });

  it('gives a decision stream it creates the stream TTL, and leaves the TTL of one that exists to its gateway', async () => {
    const stream = keys.gatewayDecisions('gw-a');
    const first = openInput();
    await stores.hooks.open(first);
    await stores.hooks.decide(first.hookId, makeDecision(first.hookId), first.now);
    const created = await redis.pTTL(stream);
    expect(created).toBeGreaterThan(DECISION_TTL_MS - 5_000);
    expect(created).toBeLessThanOrEqual(DECISION_TTL_MS);

    // The running gateway's feed refreshes the TTL (here: set far longer, so a refresh by decide would show).
    await redis.pExpire(stream, 10 * DECISION_TTL_MS);
    const second = openInput();
    await stores.hooks.open(second);
    const decision = makeDecision(second.hookId, [makeSignal('control')]);
    await stores.hooks.decide(second.hookId, decision, second.now);
    expect((await routed('gw-a')).at(-1)).toEqual(decision);
    expect(await redis.pTTL(stream)).toBeGreaterThan(9 * DECISION_TTL_MS);
  });

  it("stores the gateway's failure-policy decision like any other, and a late worker gets it back", async () => {
    const input = openInput();
    await stores.hooks.open(input);
    const policy = failurePolicyDecision({
      hookId: input.hookId,
      trigger: 'pre-tool-use',
      policy: 'fail_closed',
      code: 'E_TIMEOUT',
      message: 'no oracle answered in time',
      now: new Date().toISOString(),
    });
    await expect(stores.hooks.decide(input.hookId, policy, input.deadlineAt)).resolves.toEqual({ decision: policy, first: true });
    const late = makeDecision(input.hookId, [makeSignal('control')]);
    await expect(stores.hooks.decide(input.hookId, late, input.deadlineAt + 10)).resolves.toEqual({ decision: policy, first: false });
    expect(await stores.signals.get(late.signals[0]!.header.id)).toBeNull();
  });

  it('refuses a decision for an unknown hook, for another hook id, or for another trigger', async () => {
    const unknown = randomUUID();
    await expect(stores.hooks.decide(unknown, makeDecision(unknown), Date.now())).rejects.toBeInstanceOf(HookNotFoundError);

    const input = openInput();
    await stores.hooks.open(input);
    const other = randomUUID();
    await expect(stores.hooks.decide(input.hookId, makeDecision(other), input.now)).rejects.toBeInstanceOf(StoreInputError);
    await expect(stores.hooks.decide(input.hookId, makeDecision(input.hookId, [], 'stop'), input.now)).rejects.toThrow(/trigger stop/);
    const invalid = { ...makeDecision(input.hookId), allowed: false };
    await expect(stores.hooks.decide(input.hookId, invalid, input.now)).rejects.toMatchObject({ code: 'E_STORE_INPUT' });
    expect((await stores.hooks.get(input.hookId))?.correlation.status).toBe('pending');
  });
});

describe('get and read-back safety', () => {
  it('returns null for an unknown hook and the correlation of a pending one', async () => {
    await expect(stores.hooks.get(randomUUID())).resolves.toBeNull();
    const input = openInput();
    await stores.hooks.open(input);
    const stored = await stores.hooks.get(input.hookId);
    expect(stored).toEqual({ correlation: expect.objectContaining({ hook_id: input.hookId, status: 'pending' }) });
  });

  it('throws StoreDataError naming the key when the stored decision is corrupt, wherever it is read', async () => {
    const input = openInput();
    await stores.hooks.open(input);
    await stores.hooks.decide(input.hookId, makeDecision(input.hookId), input.now);
    const key = keys.hook(input.hookId);

    await redis.hSet(key, 'decision', '{"hook_id": "truncated');
    const notJson = await stores.hooks.get(input.hookId).catch((error: unknown) => error);
    expect(notJson).toBeInstanceOf(StoreDataError);
    expect(notJson).toMatchObject({ code: 'E_STORE_DATA', key, field: 'decision' });

    await redis.hSet(key, 'decision', JSON.stringify({ ...makeDecision(input.hookId), intensity: 'loud' }));
    const wrongShape = await stores.hooks.get(input.hookId).catch((error: unknown) => error);
    expect(wrongShape).toMatchObject({ code: 'E_STORE_DATA', key, field: 'decision' });
    expect((wrongShape as StoreDataError).issues.some((issue) => issue.path === 'intensity')).toBe(true);

    await expect(stores.hooks.open({ ...input, gatewayId: 'gw-b' })).rejects.toMatchObject({ code: 'E_STORE_DATA', key });
    await expect(stores.hooks.decide(input.hookId, makeDecision(input.hookId), input.now)).rejects.toBeInstanceOf(StoreDataError);
  });

  it('throws StoreDataError for a correlation field that does not parse', async () => {
    const input = openInput();
    await stores.hooks.open(input);
    await redis.hSet(keys.hook(input.hookId), 'deadline_at', 'soon');
    await expect(stores.hooks.get(input.hookId)).rejects.toMatchObject({ code: 'E_STORE_DATA', key: keys.hook(input.hookId) });
    await redis.hDel(keys.hook(input.hookId), 'agent_id');
    await expect(stores.hooks.open(input)).rejects.toBeInstanceOf(StoreDataError);
  });
});

describe('unanswered block and control signals', () => {
  /** Opens and decides a hook of agent-1 (session-1) with `signals`, `graceMs` to answer them; returns when it was decided. */
  async function decided(signals: ReturnType<typeof makeSignal>[], graceMs: number, overrides: Partial<OpenHookInput> = {}): Promise<number> {
    const input = openInput(overrides);
    expect((await stores.hooks.open(input)).kind).toBe('created');
    await stores.hooks.decide(input.hookId, makeDecision(input.hookId, signals), input.now, { answerGraceMs: graceMs });
    return input.now;
  }

  it('refuses new hooks of the agent, in any session, once the grace of a block or control ended, until each is answered; re-sent hooks keep their course', async () => {
    const block = makeSignal('block');
    const control = makeSignal('control');
    const t = await decided([block, makeSignal('prompt'), makeSignal('aid')], 1_000);
    await decided([control], 2_000, { now: t, deadlineAt: t + 5_000 });
    const resent = openInput({ now: t });
    await stores.hooks.open(resent);

    // Within the grace: admitted.
    expect((await stores.hooks.open(openInput({ now: t + 999 }))).kind).toBe('created');
    const refused = openInput({ now: t + 2_000, trigger: 'post-tool-use' });
    expect(await stores.hooks.open(refused)).toEqual({ kind: 'unanswered', signalIds: [block.header.id, control.header.id] });
    expect(await stores.hooks.get(refused.hookId)).toBeNull();
    expect((await stores.hooks.open({ ...resent, now: t + 2_000 })).kind).toBe('joined');
    // A new session of the agent is held too (a restart is no way out); another agent is not.
    expect(await stores.hooks.open(openInput({ now: t + 2_000, sessionId: 'session-2' }))).toEqual({ kind: 'unanswered', signalIds: [block.header.id, control.header.id] });
    expect((await stores.hooks.open(openInput({ now: t + 2_000, agentId: 'agent-2', sessionId: 'session-3' }))).kind).toBe('created');

    await stores.signals.respond('agent-1', { signal_id: block.header.id, consumed_at: new Date(t).toISOString(), action: 'retry_after_fix' }, t + 2_000);
    expect(await stores.hooks.open(openInput({ now: t + 2_001 }))).toEqual({ kind: 'unanswered', signalIds: [control.header.id] });
    // The same answer again (duplicate) is harmless; the other one lifts the hold.
    await stores.signals.respond('agent-1', { signal_id: block.header.id, consumed_at: new Date(t).toISOString(), action: 'retry_after_fix' }, t + 2_001);
    await stores.signals.respond('agent-1', { signal_id: control.header.id, consumed_at: new Date(t).toISOString(), action: 'accept_modification' }, t + 2_001);
    expect((await stores.hooks.open(openInput({ now: t + 2_002 }))).kind).toBe('created');
    expect((await stores.hooks.open(openInput({ now: t + 2_002, sessionId: 'session-2' }))).kind).toBe('created');
  });

  it('does not track signals of a client exempted from answering, nor a block that waits for an approval', async () => {
    const t = await decided([makeSignal('block')], 0, { answersRequired: false });
    expect((await stores.hooks.open(openInput({ now: t + 1 }))).kind).toBe('created');
    const waiting = makeSignal('block');
    if (waiting.payload.level !== 'blocking') throw new Error('a block signal has a blocking payload');
    waiting.payload = { ...waiting.payload, resolution: { kind: 'await_approval', request_id: 'req_approval_1', deadline: new Date(t + 60_000).toISOString() } };
    await decided([waiting], 0, { now: t + 2, deadlineAt: t + 5_000 });
    expect((await stores.hooks.open(openInput({ now: t + 3 }))).kind).toBe('created');
    // An exempted client is not held by signals another client of the session left unanswered either.
    await decided([makeSignal('control')], 0, { now: t + 4, deadlineAt: t + 5_000 });
    expect((await stores.hooks.open(openInput({ now: t + 5 }))).kind).toBe('unanswered');
    expect((await stores.hooks.open(openInput({ now: t + 5, answersRequired: false }))).kind).toBe('created');
  });

  it('stops holding the agent for a signal whose record expired (it can no longer be answered)', async () => {
    const t = await decided([makeSignal('block')], 0);
    expect((await stores.hooks.open(openInput({ now: t + 1 }))).kind).toBe('unanswered');
    expect((await stores.hooks.open(openInput({ now: t + SIGNAL_TTL_MS + 1 }))).kind).toBe('created');
  });
});
