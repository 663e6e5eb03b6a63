import { describe, expect, it } from 'vitest';
import { SignalLogFilterSchema, SignalLogLineSchema, SignalLogStatsSchema, signalLogStats, type SignalLogLine } from './signal-log-export.js';

const base: SignalLogLine = {
  timestamp: '2026-02-09T10:00:00.000Z',
  hook: 'pre-issue-submit',
  intensity: 'block',
  source: 'checklist-validator',
  consumed: true,
  action: 'retry_after_fix',
  signal_id: '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b',
  type: 'quality-gate',
  rule: 'incomplete',
  config_version: 2,
  agent_id: 'agent-1',
  session_id: 's-1',
  correlation_id: '1b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b',
  latency_ms: 12,
};

const line = (overrides: Partial<SignalLogLine>): SignalLogLine => {
  const merged = { ...base, ...overrides };
  if (!merged.consumed) delete merged.action;
  return merged;
};

describe('SignalLogLineSchema', () => {
  it('accepts a line and requires the action exactly when consumed, and one that answers the intensity', () => {
    expect(SignalLogLineSchema.safeParse(base).success).toBe(true);
    expect(SignalLogLineSchema.safeParse({ ...base, consumed: false }).success).toBe(false);
    expect(SignalLogLineSchema.safeParse({ ...base, action: 'acknowledge' }).success).toBe(false);
    const { action: _action, ...unanswered } = base;
    expect(SignalLogLineSchema.safeParse({ ...unanswered, consumed: false }).success).toBe(true);
    expect(SignalLogLineSchema.safeParse({ ...base, extra: 1 }).success).toBe(false);
  });

  it('marks answers of clients that cannot report them: inferred only when consumed, not_reported only when not', () => {
    const { action: _action, ...unanswered } = base;
    expect(SignalLogLineSchema.safeParse({ ...base, answer: 'inferred' }).success).toBe(true);
    expect(SignalLogLineSchema.safeParse({ ...base, answer: 'not_reported' }).success).toBe(false);
    expect(SignalLogLineSchema.safeParse({ ...unanswered, consumed: false, answer: 'not_reported' }).success).toBe(true);
    expect(SignalLogLineSchema.safeParse({ ...unanswered, consumed: false, answer: 'inferred' }).success).toBe(false);
  });

  it('counts not_reported signals apart from the unanswered ones, and the inferred answers among the consumed', () => {
    const stats = signalLogStats([line({ answer: 'inferred' }), line({ consumed: false, answer: 'not_reported' }), line({ consumed: false })]);
    expect(stats.total).toMatchObject({ signals: 3, consumed: 1, inferred: 1, unanswered: 1, not_reported: 1 });
  });

  it('filters are strict', () => {
    expect(SignalLogFilterSchema.safeParse({ hook: 'pre-issue-submit', intensity: 'aid', since: '2026-02-09T10:00:00Z' }).success).toBe(true);
    expect(SignalLogFilterSchema.safeParse({ agent: 'a' }).success).toBe(false);
  });
});

describe('signalLogStats', () => {
  it('counts per group and says how each intensity was answered', () => {
    const stats = signalLogStats([
      line({}),
      line({ latency_ms: 40 }),
      line({ action: 'abort', latency_ms: 20 }),
      line({ consumed: false }),
      line({ intensity: 'prompt', action: 'acknowledge', source: 'change-size-limiter', rule: 'large-change', timestamp: '2026-02-09T10:15:00.000Z' }),
      line({ intensity: 'aid', action: 'suggestion_applied', hook: 'post-issue-submit', source: 'notification', config_version: undefined, rule: undefined }),
    ]);
    expect(SignalLogStatsSchema.safeParse(stats).success).toBe(true);
    expect(stats.total).toEqual({
      signals: 6,
      consumed: 5,
      unanswered: 1,
      intensities: { block: 4, prompt: 1, aid: 1 },
      actions: { retry_after_fix: 2, abort: 1, acknowledge: 1, suggestion_applied: 1 },
    });
    expect(stats.by_action).toEqual({
      retry_after_fix: { intensity: 'block', count: 2, share: 2 / 3 },
      abort: { intensity: 'block', count: 1, share: 1 / 3 },
      acknowledge: { intensity: 'prompt', count: 1, share: 1 },
      suggestion_applied: { intensity: 'aid', count: 1, share: 1 },
    });
    expect(stats.by_hook['post-issue-submit']).toMatchObject({ signals: 1 });
    expect(stats.by_source['checklist-validator']).toMatchObject({ signals: 4, consumed: 3, unanswered: 1 });
    expect(Object.keys(stats.by_rule).sort()).toEqual(['incomplete', 'large-change']);
    expect(stats.by_config_version).toMatchObject({ '2': { signals: 5 }, defaults: { signals: 1 } });
    expect(stats.latency_ms).toEqual({ count: 6, p50: 12, p95: 40, max: 40 });
    expect([stats.first_at, stats.last_at]).toEqual(['2026-02-09T10:00:00.000Z', '2026-02-09T10:15:00.000Z']);
  });

  it('has nothing to say about no lines', () => {
    const stats = signalLogStats([], { agent_id: 'nobody' });
    expect(stats).toMatchObject({ filter: { agent_id: 'nobody' }, total: { signals: 0 }, by_action: {} });
    expect(stats.latency_ms).toBeUndefined();
    expect(stats.first_at).toBeUndefined();
  });
});
