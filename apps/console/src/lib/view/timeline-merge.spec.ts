import { describe, expect, it } from 'vitest';
import type { ProtocolState, SignalLogLine, TimelineEntry } from '@ahp/protocol';
import { mergeTimeline, planProgress } from './timeline-merge';

const line = (id: string, timestamp: string, respondedAt?: string): SignalLogLine => ({
  timestamp,
  hook: 'pre-tool-use',
  intensity: 'block',
  source: 'rules',
  consumed: respondedAt !== undefined,
  ...(respondedAt ? { action: 'retry_after_fix' as const, responded_at: respondedAt } : {}),
  signal_id: `00000000-0000-4000-8000-00000000000${id}`,
  type: 'security-violation',
  agent_id: 'alice',
  session_id: 'sess-1',
  correlation_id: '00000000-0000-4000-8000-0000000000aa',
});

const entry = (id: string, at: string): TimelineEntry => ({
  id,
  agent_id: 'alice',
  recorded_at: at,
  event: { kind: 'control_signal', control_signal: { control: 'step_done', format: 'legacy', step_id: 's1' } },
});

const request = (overrides: Partial<ProtocolState> = {}): ProtocolState =>
  ({
    request_id: 'req_1',
    type: 'plan_approval',
    sender: 'alice',
    target: { kind: 'operators' },
    status: 'approved',
    created_at: '2026-01-01T10:00:01.000Z',
    updated_at: '2026-01-01T10:00:05.000Z',
    decided_at: '2026-01-01T10:00:05.000Z',
    decided_by: 'op-maria',
    payload: { plan: { title: 'p', steps: [{ id: 's1', description: 'd', dependencies: [], status: 'pending', tools_expected: [] }] } },
    ...overrides,
  }) as ProtocolState;

describe('mergeTimeline', () => {
  it('merges signals, answers, events and requests, newest first', () => {
    const items = mergeTimeline({
      events: [entry('e1', '2026-01-01T10:00:04.000Z')],
      lines: [line('1', '2026-01-01T10:00:02.000Z', '2026-01-01T10:00:03.000Z'), line('2', '2026-01-01T10:00:06.000Z')],
      requests: [request()],
    });
    expect(items.map((item) => `${item.kind}@${item.at.slice(17, 19)}`)).toEqual([
      'signal@06',
      'request@05',
      'event@04',
      'response@03',
      'signal@02',
      'request@01',
    ]);
    expect(items.filter((item) => item.kind === 'request').map((item) => item.kind === 'request' && item.phase)).toEqual(['settled', 'opened']);
  });

  it('shows a pending request once, and an unanswered signal without an answer', () => {
    const items = mergeTimeline({ events: [], lines: [line('1', '2026-01-01T10:00:02.000Z')], requests: [request({ status: 'pending', decided_at: undefined, decided_by: undefined })] });
    expect(items.map((item) => item.kind)).toEqual(['signal', 'request']);
  });

  it('puts an answer after its signal when both carry the same time, and drops duplicates', () => {
    const same = '2026-01-01T10:00:02.000Z';
    const items = mergeTimeline({ events: [entry('e1', same), entry('e1', same)], lines: [line('1', same, same)], requests: [] });
    expect(items.map((item) => item.kind)).toEqual(['response', 'event', 'signal']);
  });
});

describe('planProgress', () => {
  it('counts done and skipped as settled, and failed apart', () => {
    expect(planProgress([{ status: 'done' }, { status: 'skipped' }, { status: 'failed' }, { status: 'pending' }])).toEqual({ settled: 2, total: 4, failed: 1 });
  });
});
