/**
 * The hook drill-down against the run's Redis: decide records the evaluation detail with the
 * first decision (in the same step), the signal-log entries carry the stage latencies, the
 * gateway's delivery time is added later, the answers come from the signal records, and the
 * decision stream carries the deciding worker's traceparent (and the decision's time with it), and
 * a sampled hook's trace id is kept with its drill-down data. A hook without signals keeps a
 * summary in its hook record, as long as that record, and reads back as a partial drill-down
 * with the context of its replay-log entry.
 */
import type { OracleVerdict } from '@ahp/protocol';
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

    let drill = await details.read(hookId);
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
    await details.recordDelivered([{ hookId, at: t0 + 11, via: 'ws' }]);
    await details.recordDelivered([{ hookId, at: t0 + 500, via: 'ws' }]);
    const answered = await stores.signals.respond('agent-1', { signal_id: signal.header.id, consumed_at: new Date().toISOString(), action: 'abort' }, Date.now());
    expect(answered.outcome).toBe('recorded');
    drill = await details.read(hookId);
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
    await stores.hooks.decide(quiet, makeDecision(quiet), now + 1, { evaluation });
    await details.recordDelivered([{ hookId: quiet, at: now + 2, via: 'http' }]);
    expect(await redis.exists(keys.hookDetail(quiet))).toBe(0);
    // Only the partial drill-down, without a delivery time.
    const partial = await details.read(quiet);
    expect(partial?.partial?.unavailable).toContain('delivery');
    expect(partial?.delivered_at).toBeUndefined();
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
    expect((await details.read(loud))?.detail.oracles).toEqual(ORACLES);
  });

  it('leaves a context larger than the limit out, saying so', async () => {
    const hookId = randomUUID();
    const now = Date.now();
    await openAt(hookId, now);
    const context = { tool: { name: 'Write', input: { content: 'x'.repeat(20_000) } } };
    await stores.hooks.decide(hookId, makeDecision(hookId, [makeSignal('aid')]), now + 1, {
      evaluation: { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: now, pickedAt: now, context, oracles: [] },
    });
    const drill = await details.read(hookId);
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
    let drill = await details.read(hookId);
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
    drill = await details.read(hookId);
    expect(drill?.detail.context).toEqual({ tool: { name: 'Bash', input: { command: 'ls -la', api_key: '[redacted]' } } });
    expect(drill?.detail.context_omitted).toBeUndefined();
    expect(drill?.partial).toMatchObject({ unavailable: ['signals', 'answers', 'delivery'], rules: [] });

    // A duplicate decision changes nothing.
    await stores.hooks.decide(hookId, makeDecision(hookId), t0 + 20, { evaluation: { ...evaluation, oracles: [] } });
    expect((await details.read(hookId))?.detail.oracles).toEqual(ORACLES);

    // A sampled hook's summary ends with its trace id, returned beside the partial detail.
    const traced = randomUUID();
    await openAt(traced, t0);
    await stores.hooks.decide(traced, makeDecision(traced), t0 + 9, { evaluation: { ...evaluation, traceId: TRACE_ID } });
    expect(JSON.parse((await redis.hGet(keys.hook(traced), 'summary')) ?? '[]')).toHaveLength(4);
    const tracedDrill = await details.read(traced);
    expect(tracedDrill?.trace_id).toBe(TRACE_ID);
    expect(tracedDrill?.stages).toEqual({ gateway_ms: 2, queue_ms: 3, worker_ms: 4 });

    // The summary goes with the hook record: a store whose decisions live 300 ms.
    const brief = createRedisStores({ redis, keys, decisionTtlMs: 300, signalTtlMs: 120_000 });
    const short = randomUUID();
    const now = Date.now();
    await brief.hooks.open({ hookId: short, agentId: 'agent-1', sessionId: 'session-1', gatewayId: 'gw-a', trigger: 'pre-tool-use', now, deadlineAt: now + 100 });
    await brief.hooks.decide(short, makeDecision(short), now + 1, { evaluation });
    expect((await details.read(short))?.partial?.reason).toBe('no_signals');
    await eventually(async () => ((await details.read(short)) === null ? true : undefined), 'the partial drill-down to go with its hook record');
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
});
