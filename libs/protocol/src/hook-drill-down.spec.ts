import { describe, expect, it } from 'vitest';
import { HookDrillDownResponseSchema, HookDrillDownSchema, HookEvaluationDetailSchema, HookLateEvaluationSchema, PolicyHookDrillDownSchema, isPolicyDrillDown, lateEvaluationOf, HookEvaluationSummarySchema, MAX_SUMMARY_ORACLE_MESSAGE, stageLatencies, summaryVerdictOf, verdictOfSummary, type OracleVerdict } from './hook-drill-down.js';
import { TraceIdSchema } from './trace-link.js';

const HOOK = '0b9e6a47-5f1c-4c1a-9a39-2f4f2f3c7d10';
const SIGNAL = '7d0f3c2e-1b4a-4f6e-8c3d-5a9b0e1f2a3b';

const detail = {
  hook_id: HOOK,
  agent_id: 'agent-1',
  session_id: 's-1',
  trigger: 'pre-tool-use',
  enqueued_at: 1_000,
  picked_at: 1_004,
  oracles: [{ oracle: 'rules', outcome: 'answered', duration_ms: 0.4, signals: 1 }],
  context: { tool: { name: 'Bash', input: { command: 'rm -rf ~' } } },
  allowed: false,
  intensity: 'block',
  decided_by: 'oracles',
  config_version: 3,
  signals: [{ signal_id: SIGNAL, source: 'rules', intensity: 'block', type: 'dangerous-command', rule: 'no-rm-rf', message: 'no' }],
  modifications: [],
} as const;

describe('stageLatencies', () => {
  it('splits received → decided into gateway, queue and worker, plus delivery once known', () => {
    expect(stageLatencies({ received_at: 998, enqueued_at: 1_000, picked_at: 1_004, decided_at: 1_010 })).toEqual({ gateway_ms: 2, queue_ms: 4, worker_ms: 6 });
    expect(stageLatencies({ received_at: 998, enqueued_at: 1_000, picked_at: 1_004, decided_at: 1_010, delivered_at: 1_011 })).toMatchObject({ delivery_ms: 1 });
  });

  it('clamps a stage measured across two clocks that disagree at 0', () => {
    expect(stageLatencies({ received_at: 1_000, enqueued_at: 1_001, picked_at: 990, decided_at: 995 })).toEqual({ gateway_ms: 1, queue_ms: 0, worker_ms: 5 });
  });
});

describe('HookDrillDownSchema', () => {
  it('accepts a recorded evaluation with its stage times and answers', () => {
    expect(HookEvaluationDetailSchema.parse(detail)).toEqual(detail);
    const drill = {
      detail,
      received_at: 998,
      decided_at: 1_010,
      delivered_at: 1_011,
      delivered_via: 'ws',
      stages: { gateway_ms: 2, queue_ms: 4, worker_ms: 6, delivery_ms: 1 },
      answers: { [SIGNAL]: { signal_id: SIGNAL, consumed_at: '2026-02-09T10:00:02.000Z', action: 'abort' } },
    };
    expect(HookDrillDownSchema.parse(drill)).toEqual(drill);
    expect(HookDrillDownSchema.parse({ ...drill, trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' }).trace_id).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('refuses an unknown oracle outcome or a field it does not know', () => {
    expect(HookEvaluationDetailSchema.safeParse({ ...detail, oracles: [{ ...detail.oracles[0], outcome: 'maybe' }] }).success).toBe(false);
    expect(HookEvaluationDetailSchema.safeParse({ ...detail, extra: 1 }).success).toBe(false);
  });
});

describe('the summary of a hook without signals', () => {
  it('keeps each verdict compact and gives it back whole, a long message cut', () => {
    const verdicts: OracleVerdict[] = [
      { oracle: 'rules', outcome: 'answered', duration_ms: 0.4, signals: 0 },
      { oracle: 'slow', outcome: 'timeout', duration_ms: 50, signals: 0, message: 'no answer within 50 ms' },
      { oracle: 'flaky', outcome: 'threw', duration_ms: 2, signals: 0, skipped: true },
    ];
    const summary = HookEvaluationSummarySchema.parse(JSON.parse(JSON.stringify([1_000, 1_004, verdicts.map(summaryVerdictOf)])));
    expect(summary[2][0]).toEqual(['rules', 'answered', 0.4, 0]);
    expect(summary[2].map(verdictOfSummary)).toEqual(verdicts);
    const long = summaryVerdictOf({ oracle: 'chatty', outcome: 'invalid', duration_ms: 1, signals: 0, message: 'x'.repeat(1_000) });
    expect(verdictOfSummary(long).message).toHaveLength(MAX_SUMMARY_ORACLE_MESSAGE);
  });

  it('ends with the trace id only when the hook was traced and sampled; a malformed id is refused', () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(HookEvaluationSummarySchema.parse([1_000, 1_004, [], traceId])[3]).toBe(traceId);
    expect(HookEvaluationSummarySchema.parse([1_000, 1_004, []])).toHaveLength(3);
    for (const bad of ['0'.repeat(32), traceId.toUpperCase(), traceId.slice(1), 'not-a-trace-id']) expect(TraceIdSchema.safeParse(bad).success, bad).toBe(false);
    expect(HookEvaluationSummarySchema.safeParse([1_000, 1_004, [], 'nope']).success).toBe(false);
  });

  it('a partial drill-down says what it lacks', () => {
    const partial = { detail: { ...detail, signals: [], context: undefined, context_omitted: 'not_recorded' }, received_at: 998, decided_at: 1_010, stages: { gateway_ms: 2, queue_ms: 4, worker_ms: 6 }, answers: {}, partial: { reason: 'no_signals', unavailable: ['signals', 'answers', 'delivery', 'context'] } };
    expect(HookDrillDownSchema.safeParse(partial).success).toBe(true);
    expect(HookDrillDownSchema.safeParse({ ...partial, partial: { reason: 'expired', unavailable: [] } }).success).toBe(false);
  });
});

describe('the drill-down of a failure-policy decision', () => {
  const policy = {
    policy: { hook_id: HOOK, agent_id: 'agent-1', session_id: 's-1', trigger: 'pre-tool-use', allowed: false, policy: 'fail_closed', error: { code: 'E_TIMEOUT', message: 'no decision arrived before the hook deadline' }, context_omitted: 'not_recorded' },
    received_at: 1_000,
    decided_at: 6_002,
    stages: { waited_ms: 5_002 },
    partial: { reason: 'failure_policy', unavailable: ['signals', 'answers', 'oracles', 'queue', 'delivery', 'context'] },
  } as const;

  it('has its own shape, told apart from an evaluation by the response schema', () => {
    const parsed = HookDrillDownResponseSchema.parse(policy);
    expect(parsed).toEqual(policy);
    expect(isPolicyDrillDown(parsed)).toBe(true);
    const evaluated = HookDrillDownResponseSchema.parse({ detail, received_at: 998, decided_at: 1_010, stages: { gateway_ms: 2, queue_ms: 4, worker_ms: 6 }, answers: {} });
    expect(isPolicyDrillDown(evaluated)).toBe(false);
  });

  it('keeps each form strict: no reason, detail or stage of the other form', () => {
    expect(PolicyHookDrillDownSchema.safeParse({ ...policy, partial: { ...policy.partial, reason: 'no_signals' } }).success).toBe(false);
    expect(PolicyHookDrillDownSchema.safeParse({ ...policy, stages: { gateway_ms: 1 } }).success).toBe(false);
    expect(PolicyHookDrillDownSchema.safeParse({ ...policy, detail }).success).toBe(false);
    expect(HookDrillDownResponseSchema.safeParse({ ...policy, policy: { ...policy.policy, policy: 'fail_sometimes' } }).success).toBe(false);
    expect(HookDrillDownSchema.safeParse({ detail, received_at: 998, decided_at: 1_010, stages: { gateway_ms: 2, queue_ms: 4, worker_ms: 6 }, answers: {}, partial: { reason: 'failure_policy', unavailable: [] } }).success).toBe(false);
  });

  it("reports a worker's skip or its too-late evaluation, the latter's messages cut to a summary's", () => {
    expect(PolicyHookDrillDownSchema.parse({ ...policy, late: { outcome: 'skipped', enqueued_at: 1_000, picked_at: 7_000 }, stages: { waited_ms: 5_002, gateway_ms: 0, queue_ms: 6_000 } }).late?.outcome).toBe('skipped');
    expect(HookLateEvaluationSchema.safeParse({ outcome: 'skipped', enqueued_at: 1_000, picked_at: 7_000, finished_at: 7_001 }).success).toBe(false);
    const late = lateEvaluationOf({
      outcome: 'evaluated',
      enqueued_at: 1_000,
      picked_at: 1_002,
      finished_at: 6_500,
      allowed: true,
      intensity: null,
      decided_by: 'oracles',
      signals: 0,
      oracles: [{ oracle: 'slow', outcome: 'answered', duration_ms: 5_498, signals: 0, message: 'x'.repeat(1_000) }],
    });
    expect(late.outcome === 'evaluated' && late.oracles[0]?.message).toHaveLength(MAX_SUMMARY_ORACLE_MESSAGE);
    expect(HookLateEvaluationSchema.parse(late)).toEqual(late);
  });
});
