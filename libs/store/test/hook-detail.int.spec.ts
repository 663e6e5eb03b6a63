/**
 * The hook drill-down against the run's Redis: decide records the evaluation detail with the
 * first decision (in the same step), the signal-log entries carry the stage latencies, the
 * gateway's delivery time is added later, the answers come from the signal records, and the
 * decision stream carries the deciding worker's traceparent (and the decision's time with it), and
 * a sampled hook's trace id is kept with its drill-down data. A hook without signals keeps a
 * summary in its hook record, as long as that record, and reads back as a partial drill-down
 * with the context of its replay-log entry; its delivery time goes to the gateway's per-minute
 * delivery hash. A hook the gateway's failure policy decided reads back in its own shape, with
 * what a worker reported afterwards (hook-late).
 */
import { failurePolicyDecision, isPolicyDrillDown, type HookDrillDown, type OracleVerdict, type PolicyHookDrillDown } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHookDetailStore, createRedisStores, createReplayLog, readSignalLog, type HookDetailStore, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { eventually, makeDecision, makeSignal, openClient, randomUUID, testKeys } from './support.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;
let details: HookDetailStore;

beforeAll(async () => {
  redis = await openClient('store-test:hook-detail');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys, decisionTtlMs: 60_000, signalTtlMs: 120_000 });
  details = createHookDetailStore({ redis, keys });
});

const ORACLES: OracleVerdict[] = [
  { oracle: 'rules', outcome: 'answered', duration_ms: 0.7, signals: 1 },
  { oracle: 'slow-plugin', outcome: 'timeout', duration_ms: 50, signals: 0, message: 'no answer within 50 ms' },
];

/** The drill-down of a hook a worker decided (fails on a failure-policy one). */
async function readEvaluated(hookId: string): Promise<HookDrillDown | null> {
  const drill = await details.read(hookId);
  if (drill !== null && isPolicyDrillDown(drill)) throw new Error(`hook ${hookId} reads as a failure-policy decision`);
  return drill;
}

/** The drill-down of a hook the failure policy decided (fails on any other). */
async function readPolicy(hookId: string): Promise<PolicyHookDrillDown> {
  const drill = await details.read(hookId);
  if (drill === null || !isPolicyDrillDown(drill)) throw new Error(`hook ${hookId} has no failure-policy drill-down`);
  return drill;
}

async function openAt(hookId: string, now: number): Promise<void> {
  const outcome = await stores.hooks.open({ hookId, agentId: 'agent-1', sessionId: 'session-1', gatewayId: 'gw-a', trigger: 'pre-tool-use', now, deadlineAt: now + 5_000 });
  expect(outcome.kind).toBe('created');
}

describe('hook drill-down', () => {
  it('records context (redacted), oracle verdicts, signals and stage times with the first decision; delivery and answers join later', async () => {
    const hookId = randomUUID();
    const t0 = Date.now();
    await openAt(hookId, t0);
    const signal = makeSignal('block', 'rules');
    signal.context['rule'] = 'no-force-push';
    const decision = { ...makeDecision(hookId, [signal]), config_version: 4 };
    const context = { tool: { name: 'Bash', input: { command: 'git push --force', api_key: 'sk-live-123' } } };
    const stored = await stores.hooks.decide(hookId, decision, t0 + 9, {
      evaluation: { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: t0 + 2, pickedAt: t0 + 5, context, oracles: ORACLES, traceId: TRACE_ID },
      traceparent: TRACEPARENT,
    });
    expect(stored.first).toBe(true);

    // The log entry of the signal carries the three stages, which add up to latency_ms.
    const [entry] = await readSignalLog(redis, keys);
    expect(entry?.latencyMs).toBe(9);
    expect(entry?.stages).toEqual({ gateway_ms: 2, queue_ms: 3, worker_ms: 4 });

    // The decision reaches the owner's stream with the deciding span's trace context.
    const [routed] = (await redis.xRange(keys.gatewayDecisions('gw-a'), '-', '+')) ?? [];
    expect(routed?.message['traceparent']).toBe(TRACEPARENT);
    expect(routed?.message['decided_at']).toBe(String(t0 + 9));

    let drill = await readEvaluated(hookId);
    expect(drill).not.toBeNull();
    expect(drill?.detail).toMatchObject({
      hook_id: hookId,
      agent_id: 'agent-1',
      trigger: 'pre-tool-use',
      oracles: ORACLES,
      allowed: false,
      intensity: 'block',
      decided_by: 'oracles',
      config_version: 4,
      signals: [{ signal_id: signal.header.id, source: 'rules', intensity: 'block', rule: 'no-force-push' }],
    });
    expect(drill?.detail.context).toEqual({ tool: { name: 'Bash', input: { command: 'git push --force', api_key: '[redacted]' } } });
    expect(drill?.stages).toEqual({ gateway_ms: 2, queue_ms: 3, worker_ms: 4 });
    expect(drill?.answers).toEqual({});
    // The trace id is returned beside the detail, not in it.
    expect(drill?.trace_id).toBe(TRACE_ID);
    expect(drill?.detail).not.toHaveProperty('trace_id');

    // The gateway's delivery (first one wins) and the agent's answer.
    await details.recordDelivered([{ hookId, at: t0 + 11, via: 'ws', decidedAt: decision.decided_at, withSignals: true }], 'gw-a');
    await details.recordDelivered([{ hookId, at: t0 + 500, via: 'ws', decidedAt: decision.decided_at, withSignals: true }], 'gw-a');
    const answered = await stores.signals.respond('agent-1', { signal_id: signal.header.id, consumed_at: new Date().toISOString(), action: 'abort' }, Date.now());
    expect(answered.outcome).toBe('recorded');
    drill = await readEvaluated(hookId);
    expect(drill?.delivered_at).toBe(t0 + 11);
    expect(drill?.delivered_via).toBe('ws');
    expect(drill?.stages.delivery_ms).toBe(2);
    expect(drill?.answers[signal.header.id]?.action).toBe('abort');
  });

  it('records no drill-down record for a decision without signals, nor for a duplicate, and a delivery never creates a record', async () => {
    const quiet = randomUUID();
    const now = Date.now();
    await openAt(quiet, now);
    const evaluation = { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: now, pickedAt: now, context: {}, oracles: ORACLES };
    const quietDecision = makeDecision(quiet);
    await stores.hooks.decide(quiet, quietDecision, now + 1, { evaluation });
    // Before the gateway's flush: the partial drill-down lists the delivery as unavailable.
    expect((await readEvaluated(quiet))?.partial?.unavailable).toContain('delivery');
    await details.recordDelivered([{ hookId: quiet, at: now + 2, via: 'http', decidedAt: quietDecision.decided_at, withSignals: false }], 'gw-a');
    expect(await redis.exists(keys.hookDetail(quiet))).toBe(0);
    // The partial drill-down, with its delivery time from the gateway's delivery hash.
    const partial = await readEvaluated(quiet);
    expect(partial?.partial?.unavailable).not.toContain('delivery');
    expect(partial).toMatchObject({ delivered_at: now + 2, delivered_via: 'http' });
    expect(partial?.stages.delivery_ms).toBe(1);
    // A delivery by a gateway that does not own the hook lands in that gateway's hash, not read for this hook.
    const elsewhere = randomUUID();
    await openAt(elsewhere, now);
    const elsewhereDecision = makeDecision(elsewhere);
    await stores.hooks.decide(elsewhere, elsewhereDecision, now + 1, { evaluation });
    await details.recordDelivered([{ hookId: elsewhere, at: now + 2, via: 'ws', decidedAt: elsewhereDecision.decided_at, withSignals: false }], 'gw-b');
    expect((await readEvaluated(elsewhere))?.delivered_at).toBeUndefined();
      // Not traced: no trace id, and the summary stays three elements.
      expect(partial?.trace_id).toBeUndefined();
      expect(JSON.parse((await redis.hGet(keys.hook(quiet), 'summary')) ?? '[]')).toHaveLength(3);
      const [routedQuiet] = (await redis.xRange(keys.gatewayDecisions('gw-a'), '-', '+')) ?? [];
      expect(routedQuiet?.message).not.toHaveProperty('decided_at');
    // A decision with signals keeps its summary in the drill-down record only.
    const loudOne = randomUUID();
    await openAt(loudOne, now);
    await stores.hooks.decide(loudOne, makeDecision(loudOne, [makeSignal('aid')]), now + 1, { evaluation });
    expect(await redis.hExists(keys.hook(loudOne), 'summary')).toBe(0);

    const loud = randomUUID();
    await openAt(loud, now);
    const first = makeDecision(loud, [makeSignal('prompt')]);
    await stores.hooks.decide(loud, first, now + 3, { evaluation });
    const again = await stores.hooks.decide(loud, makeDecision(loud, [makeSignal('block')]), now + 4, { evaluation: { ...evaluation, oracles: [] } });
    expect(again.first).toBe(false);
    expect((await readEvaluated(loud))?.detail.oracles).toEqual(ORACLES);
  });

  it('leaves a context larger than the limit out, saying so', async () => {
    const hookId = randomUUID();
    const now = Date.now();
    await openAt(hookId, now);
    const context = { tool: { name: 'Write', input: { content: 'x'.repeat(20_000) } } };
    await stores.hooks.decide(hookId, makeDecision(hookId, [makeSignal('aid')]), now + 1, {
      evaluation: { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: now, pickedAt: now, context, oracles: [] },
    });
    const drill = await readEvaluated(hookId);
    expect(drill?.detail.context).toBeUndefined();
    expect(drill?.detail.context_omitted).toBe('too_large');
  });

  it('keeps a summary of a hook without signals in its hook record, read back as a partial drill-down with the context from the replay log, for as long as the hook record lives', async () => {
    const hookId = randomUUID();
    const t0 = Date.now();
    await openAt(hookId, t0);
    const context = { tool: { name: 'Bash', input: { command: 'ls -la', api_key: 'sk-live-abc' } } };
    const decision = { ...makeDecision(hookId), config_version: 7 };
    const evaluation = { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: t0 + 2, pickedAt: t0 + 5, context, oracles: ORACLES };
    expect((await stores.hooks.decide(hookId, decision, t0 + 9, { evaluation })).first).toBe(true);

    // The summary is a field of the hook record: the same key, so the same lifetime and slot.
    const hook = keys.hook(hookId);
    expect(await redis.hExists(hook, 'summary')).toBe(1);
    expect(await redis.exists(keys.hookDetail(hookId))).toBe(0);

    // Before the replay-log entry exists: everything but the context.
    let drill = await readEvaluated(hookId);
    expect(drill?.detail).toMatchObject({ hook_id: hookId, agent_id: 'agent-1', session_id: 'session-1', oracles: ORACLES, allowed: true, config_version: 7, signals: [], context_omitted: 'not_recorded' });
    expect(drill?.stages).toEqual({ gateway_ms: 2, queue_ms: 3, worker_ms: 4 });
    expect(drill?.received_at).toBe(t0);
    expect(drill?.decided_at).toBe(t0 + 9);
    expect(drill?.partial).toMatchObject({ reason: 'no_signals', unavailable: ['signals', 'answers', 'delivery', 'context'] });
    expect(drill?.partial?.expires_at).toBeGreaterThan(Date.now());

    // Another hook's entry in the window is passed over; this hook's is found by time.
    const log = createReplayLog({ redis, keys });
    const entry = { trigger: 'pre-tool-use' as const, agent: { id: 'agent-1', name: 'Agent one' }, sessionId: 'session-1', context, decision, configVersion: 7, at: t0 + 9 };
    await log.append({ ...entry, hookId: randomUUID() });
    await log.append({ ...entry, hookId });
    drill = await readEvaluated(hookId);
    expect(drill?.detail.context).toEqual({ tool: { name: 'Bash', input: { command: 'ls -la', api_key: '[redacted]' } } });
    expect(drill?.detail.context_omitted).toBeUndefined();
    expect(drill?.partial).toMatchObject({ unavailable: ['signals', 'answers', 'delivery'], rules: [] });

    // A duplicate decision changes nothing.
    await stores.hooks.decide(hookId, makeDecision(hookId), t0 + 20, { evaluation: { ...evaluation, oracles: [] } });
    expect((await readEvaluated(hookId))?.detail.oracles).toEqual(ORACLES);

    // A sampled hook's summary ends with its trace id, returned beside the partial detail.
    const traced = randomUUID();
    await openAt(traced, t0);
    await stores.hooks.decide(traced, makeDecision(traced), t0 + 9, { evaluation: { ...evaluation, traceId: TRACE_ID } });
    expect(JSON.parse((await redis.hGet(keys.hook(traced), 'summary')) ?? '[]')).toHaveLength(4);
    const tracedDrill = await readEvaluated(traced);
    expect(tracedDrill?.trace_id).toBe(TRACE_ID);
    expect(tracedDrill?.stages).toEqual({ gateway_ms: 2, queue_ms: 3, worker_ms: 4 });

    // The summary goes with the hook record: a store whose decisions live 300 ms.
    const brief = createRedisStores({ redis, keys, decisionTtlMs: 300, signalTtlMs: 120_000 });
    const short = randomUUID();
    const now = Date.now();
    await brief.hooks.open({ hookId: short, agentId: 'agent-1', sessionId: 'session-1', gatewayId: 'gw-a', trigger: 'pre-tool-use', now, deadlineAt: now + 100 });
    await brief.hooks.decide(short, makeDecision(short), now + 1, { evaluation });
    expect((await readEvaluated(short))?.partial?.reason).toBe('no_signals');
    await eventually(async () => ((await readEvaluated(short)) === null ? true : undefined), 'the partial drill-down to go with its hook record');
  });

  it('measures what the summary adds to a hook record', async () => {
    const sizes: string[] = [];
    const one = [{ oracle: 'rules', outcome: 'answered' as const, duration_ms: 0.42, signals: 0 }];
    for (const [oracles, traceId] of [[one, undefined], [ORACLES, undefined], [one, TRACE_ID]] as const) {
      const hookId = randomUUID();
      const now = Date.now();
      await openAt(hookId, now);
      const evaluation = { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: now, pickedAt: now + 1, context: {}, oracles, ...(traceId === undefined ? {} : { traceId }) };
      await stores.hooks.decide(hookId, makeDecision(hookId), now + 2, { evaluation });
      const withSummary = (await redis.memoryUsage(keys.hook(hookId), { SAMPLES: 0 })) ?? 0;
      await redis.hDel(keys.hook(hookId), 'summary');
      const without = (await redis.memoryUsage(keys.hook(hookId), { SAMPLES: 0 })) ?? 0;
      expect(withSummary).toBeGreaterThan(without);
      sizes.push(`${String(oracles.length)} verdict(s)${traceId === undefined ? '' : ' and a trace id'}: ${String(without)} B → ${String(withSummary)} B`);
    }
    // Reported, not asserted beyond its sign: the figures are in docs/console.md.
    process.stdout.write(`hook record without → with the summary: ${sizes.join('; ')}\n`);
  });

  it("records the delivery of hooks without signals in one call per minute of decision, the first time kept, the hash outliving the hook records", async () => {
    const minute = 60_000;
    const base = Math.floor(Date.now() / minute) * minute;
    const hooks = Array.from({ length: 3 }, () => randomUUID());
    const deliveries = hooks.map((hookId, index) => ({ hookId, at: base + minute + index, via: 'ws' as const, decidedAt: new Date(base + (index === 2 ? minute : 0) + 5).toISOString(), withSignals: false }));
    await details.recordDelivered(deliveries, 'gw-a');
    await details.recordDelivered([{ ...deliveries[0]!, at: base + 2 * minute, via: 'http' }], 'gw-a');
    const first = keys.gatewayDeliveries('gw-a', base / minute);
    const second = keys.gatewayDeliveries('gw-a', base / minute + 1);
    expect(await redis.hGetAll(first)).toEqual({ [hooks[0]!]: `${base + minute}:ws`, [hooks[1]!]: `${base + minute + 1}:ws` });
    expect(await redis.hGetAll(second)).toEqual({ [hooks[2]!]: `${base + minute + 2}:ws` });
    // The default decision TTL (15 min) plus the minute.
    expect(await redis.pTTL(first)).toBeGreaterThan(15 * minute);
    expect(await redis.pTTL(first)).toBeLessThanOrEqual(16 * minute);

    // What a delivery costs in memory: a minute's hash of 2,000 hooks (written as four flushes).
    const many = Array.from({ length: 2_000 }, () => ({ hookId: randomUUID(), at: base + 5, via: 'ws' as const, decidedAt: new Date(base + 7 * minute).toISOString(), withSignals: false }));
    for (let start = 0; start < many.length; start += 500) await details.recordDelivered(many.slice(start, start + 500), 'gw-a');
    const bytes = (await redis.memoryUsage(keys.gatewayDeliveries('gw-a', base / minute + 7), { SAMPLES: 0 })) ?? 0;
    expect(await redis.hLen(keys.gatewayDeliveries('gw-a', base / minute + 7))).toBe(2_000);
    // Reported, not asserted beyond its sign: the figure is in docs/console.md.
    expect(bytes).toBeGreaterThan(0);
    process.stdout.write(`delivery hash: ${String(Math.round(bytes / 2_000))} B per hook\n`);
  });

  it("reads a hook the gateway's failure policy decided in its own shape: the policy, the error, what is known of the stages", async () => {
    const hookId = randomUUID();
    const t0 = Date.now();
    await openAt(hookId, t0);
    const decision = failurePolicyDecision({ hookId, trigger: 'pre-tool-use', policy: 'fail_closed', code: 'E_TIMEOUT', message: 'no decision arrived before the hook deadline', now: new Date(t0 + 5_000).toISOString() });
    expect((await stores.hooks.decide(hookId, decision, t0 + 5_000)).first).toBe(true);

    let drill = await readPolicy(hookId);
    expect(drill.policy).toEqual({
      hook_id: hookId,
      agent_id: 'agent-1',
      session_id: 'session-1',
      trigger: 'pre-tool-use',
      allowed: false,
      policy: 'fail_closed',
      error: { code: 'E_TIMEOUT', message: 'no decision arrived before the hook deadline' },
      context_omitted: 'not_recorded',
    });
    expect(drill).toMatchObject({ received_at: t0, decided_at: t0 + 5_000, stages: { waited_ms: 5_000 } });
    expect(drill.late).toBeUndefined();
    expect(drill.partial).toMatchObject({ reason: 'failure_policy', unavailable: ['signals', 'answers', 'oracles', 'queue', 'delivery', 'context'] });
    expect(drill.partial.expires_at).toBeGreaterThan(Date.now());

    // The gateway delivered it; then a worker picked the job up, past the deadline, and skipped it.
    await details.recordDelivered([{ hookId, at: t0 + 5_003, via: 'ws', decidedAt: decision.decided_at, withSignals: false }], 'gw-a');
    await details.recordLate(hookId, { outcome: 'skipped', enqueued_at: t0 + 1, picked_at: t0 + 6_000 });
    // Once only: a second report (a re-run) changes nothing.
    await details.recordLate(hookId, { outcome: 'skipped', enqueued_at: t0 + 1, picked_at: t0 + 9_000 });
    drill = await readPolicy(hookId);
    expect(drill).toMatchObject({ delivered_at: t0 + 5_003, delivered_via: 'ws', late: { outcome: 'skipped', enqueued_at: t0 + 1, picked_at: t0 + 6_000 } });
    expect(drill.stages).toEqual({ waited_ms: 5_000, gateway_ms: 1, queue_ms: 5_999, delivery_ms: 3 });
    expect(drill.partial.unavailable).toEqual(['signals', 'answers', 'oracles', 'context']);
  });

  it("keeps a worker's too-late evaluation of a failure-policy hook, with the context of its replay-log entry; never for a hook a worker decided, nor without a hook record", async () => {
    const hookId = randomUUID();
    const t0 = Date.now();
    await openAt(hookId, t0);
    const decision = failurePolicyDecision({ hookId, trigger: 'pre-tool-use', policy: 'fail_open', code: 'E_TIMEOUT', message: 'no decision arrived before the hook deadline', now: new Date(t0 + 50).toISOString() });
    await stores.hooks.decide(hookId, decision, t0 + 50);
    const slow: OracleVerdict = { oracle: 'slow-plugin', outcome: 'answered', duration_ms: 70, signals: 1, message: 'y'.repeat(1_000) };
    await details.recordLate(hookId, { outcome: 'evaluated', enqueued_at: t0 + 1, picked_at: t0 + 3, finished_at: t0 + 80, allowed: false, intensity: 'block', decided_by: 'oracles', signals: 1, oracles: [slow] });
    const context = { tool: { name: 'Bash', input: { command: 'rm -rf build' } } };
    await createReplayLog({ redis, keys }).append({ trigger: 'pre-tool-use', agent: { id: 'agent-1', name: 'Agent one' }, sessionId: 'session-1', hookId, context, decision: makeDecision(hookId, [makeSignal('block', 'slow-plugin')]), configVersion: undefined, at: t0 + 80 });

    const drill = await readPolicy(hookId);
    expect(drill.policy).toMatchObject({ allowed: true, policy: 'fail_open', context });
    expect(drill.late).toMatchObject({ outcome: 'evaluated', allowed: false, intensity: 'block', signals: 1, finished_at: t0 + 80 });
    expect(drill.late?.outcome === 'evaluated' && drill.late.oracles[0]?.message).toHaveLength(256);
    expect(drill.stages).toEqual({ waited_ms: 50, gateway_ms: 1, queue_ms: 2, worker_ms: 77 });
    expect(drill.partial.unavailable).toEqual(['signals', 'answers', 'delivery']);

    // A hook a worker decided (it has a summary) takes no late report, nor does a hook without a record.
    const decided = randomUUID();
    await openAt(decided, t0);
    await stores.hooks.decide(decided, makeDecision(decided), t0 + 2, { evaluation: { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: t0, pickedAt: t0 + 1, context: {}, oracles: ORACLES } });
    await details.recordLate(decided, { outcome: 'skipped', enqueued_at: t0, picked_at: t0 + 1 });
    expect(await redis.hExists(keys.hook(decided), 'late')).toBe(0);
    const missing = randomUUID();
    await details.recordLate(missing, { outcome: 'skipped', enqueued_at: t0, picked_at: t0 + 1 });
    expect(await redis.exists(keys.hook(missing))).toBe(0);
    // A pending hook takes one (a worker that skipped the job before the gateway's deadline timer stored the policy).
    const pending = randomUUID();
    await openAt(pending, t0);
    expect(await details.read(pending)).toBeNull();
    await details.recordLate(pending, { outcome: 'skipped', enqueued_at: t0, picked_at: t0 + 1 });
    expect(await redis.hExists(keys.hook(pending), 'late')).toBe(1);
  });
});
