/**
 * One agent's story for the timeline page: what it reported (timeline events), the signals it was
 * sent and its answers to them (signal log), and the requests it opened or had to decide, merged
 * into one list, newest first.
 */
import type { ProtocolState, SignalLogLine, TimelineEntry } from '@ahp/protocol';

export type TimelineItem =
  /** A signal sent to the agent (from its signal-log line). */
  | { kind: 'signal'; key: string; at: string; line: SignalLogLine }
  /** The agent's answer to a signal. */
  | { kind: 'response'; key: string; at: string; line: SignalLogLine }
  /** An event the agent reported: control signal, plan progress, verification. */
  | { kind: 'event'; key: string; at: string; entry: TimelineEntry }
  /** A request the agent took part in: when it was opened, and when it was settled. */
  | { kind: 'request'; key: string; at: string; phase: 'opened' | 'settled'; request: ProtocolState };

export interface TimelineSources {
  events: readonly TimelineEntry[];
  lines: readonly SignalLogLine[];
  requests: readonly ProtocolState[];
}

/** Tie-break order for items at the same instant (newest-first list): the answer after its signal. */
const KIND_RANK: Record<TimelineItem['kind'], number> = { response: 0, request: 1, event: 2, signal: 3 };

/** Every item of `sources`, newest first; items at the same time keep a stable, meaningful order. */
export function mergeTimeline(sources: TimelineSources): TimelineItem[] {
  const items: TimelineItem[] = [];
  for (const entry of sources.events) items.push({ kind: 'event', key: `event:${entry.id}`, at: entry.recorded_at, entry });
  for (const line of sources.lines) {
    items.push({ kind: 'signal', key: `signal:${line.signal_id}`, at: line.timestamp, line });
    if (line.responded_at !== undefined) items.push({ kind: 'response', key: `response:${line.signal_id}`, at: line.responded_at, line });
  }
  for (const request of sources.requests) {
    items.push({ kind: 'request', key: `request:${request.request_id}:opened`, at: request.created_at, phase: 'opened', request });
    if (request.status !== 'pending' && request.decided_at !== undefined) {
      items.push({ kind: 'request', key: `request:${request.request_id}:settled`, at: request.decided_at, phase: 'settled', request });
    }
  }
  const seen = new Set<string>();
  const unique = items.filter((item) => (seen.has(item.key) ? false : (seen.add(item.key), true)));
  return unique.sort((a, b) => {
    const delta = Date.parse(b.at) - Date.parse(a.at);
    if (delta !== 0) return delta;
    const rank = KIND_RANK[a.kind] - KIND_RANK[b.kind];
    if (rank !== 0) return rank;
    return a.key < b.key ? 1 : a.key > b.key ? -1 : 0;
  });
}

/** Plan progress in numbers: settled (done or skipped) steps of all steps. */
export function planProgress(steps: readonly { status: string }[]): { settled: number; total: number; failed: number } {
  let settled = 0;
  let failed = 0;
  for (const step of steps) {
    if (step.status === 'done' || step.status === 'skipped') settled += 1;
    if (step.status === 'failed') failed += 1;
  }
  return { settled, total: steps.length, failed };
}
