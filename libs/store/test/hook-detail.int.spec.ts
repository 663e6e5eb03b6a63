/**
 * The hook drill-down against the run's Redis: decide records the evaluation detail with the
 * first decision (in the same step), the signal-log entries carry the stage latencies, the
 * gateway's delivery time is added later, the answers come from the signal records, and the
 * decision stream carries the deciding worker's traceparent.
 */
import type { OracleVerdict } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHookDetailStore, createRedisStores, readSignalLog, type HookDetailStore, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { makeDecision, makeSignal, openClient, randomUUID, testKeys } from './support.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

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
      evaluation: { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: t0 + 2, pickedAt: t0 + 5, context, oracles: ORACLES },
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

  it('records nothing for a decision without signals, nor for a duplicate, and a delivery never creates a record', async () => {
    const quiet = randomUUID();
    const now = Date.now();
    await openAt(quiet, now);
    const evaluation = { agentId: 'agent-1', sessionId: 'session-1', enqueuedAt: now, pickedAt: now, context: {}, oracles: ORACLES };
    await stores.hooks.decide(quiet, makeDecision(quiet), now + 1, { evaluation });
    await details.recordDelivered([{ hookId: quiet, at: now + 2, via: 'http' }]);
    expect(await details.read(quiet)).toBeNull();
    expect(await redis.exists(keys.hookDetail(quiet))).toBe(0);

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
});
