/**
 * The numbers behind the signal log's charts: signals per intensity over time (equal time
 * buckets), and how agents answered each intensity.
 */
import { ACTIONS_BY_INTENSITY, INTENSITIES, type Intensity, type SignalLogLine, type SignalLogStats } from '@ahp/protocol';

export interface IntensityBucket {
  /** Epoch ms, inclusive. */
  start: number;
  /** Epoch ms, exclusive. */
  end: number;
  counts: Record<Intensity, number>;
  total: number;
}

function zeroCounts(): Record<Intensity, number> {
  return { block: 0, control: 0, prompt: 0, aid: 0 };
}

/**
 * Splits `[from, to)` into `buckets` equal spans and counts the lines of each intensity in each.
 * Lines outside the range are ignored; `to` is nudged past `from` for an empty range.
 */
export function bucketByIntensity(lines: readonly Pick<SignalLogLine, 'timestamp' | 'intensity'>[], from: number, to: number, buckets: number): IntensityBucket[] {
  const count = Math.max(1, Math.floor(buckets));
  const end = to > from ? to : from + 1;
  const width = (end - from) / count;
  const result: IntensityBucket[] = Array.from({ length: count }, (_, i) => ({
    start: from + i * width,
    end: i === count - 1 ? end : from + (i + 1) * width,
    counts: zeroCounts(),
    total: 0,
  }));
  for (const line of lines) {
    const at = Date.parse(line.timestamp);
    if (Number.isNaN(at) || at < from || at >= end) continue;
    const bucket = result[Math.min(count - 1, Math.floor((at - from) / width))];
    if (!bucket) continue;
    bucket.counts[line.intensity] += 1;
    bucket.total += 1;
  }
  return result;
}

/** The least a fitted range spans, so one signal (or a burst within a second) still gets a readable axis. */
const MIN_FITTED_SPAN_MS = 60_000;

/**
 * The time range a chart opens on: the span of the lines themselves (padded by 5 %, and at least
 * a minute), kept inside the filter's bounds — a day's window with signals in its last ten minutes
 * opens on those ten minutes, not on a day of empty buckets. With no line it is the filter's
 * window (ending at `nowMs` when open-ended).
 */
export function chartRange(lines: readonly Pick<SignalLogLine, 'timestamp'>[], since: string | undefined, until: string | undefined, nowMs: number): { from: number; to: number } {
  const lower = since ? Date.parse(since) : Number.NEGATIVE_INFINITY;
  const upper = until ? Date.parse(until) : Number.POSITIVE_INFINITY;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const line of lines) {
    const at = Date.parse(line.timestamp);
    if (Number.isNaN(at)) continue;
    if (at < first) first = at;
    if (at > last) last = at;
  }
  if (first > last) {
    const to = Number.isFinite(upper) ? upper : nowMs;
    const from = Number.isFinite(lower) ? lower : to - 3_600_000;
    return { from, to: to > from ? to : from + 1 };
  }
  const pad = Math.max((last - first) * 0.05, (MIN_FITTED_SPAN_MS - (last - first)) / 2, 0);
  const from = Math.max(lower, first - pad);
  // One past the last line: bucket ends are exclusive.
  const to = Math.min(upper, last + pad + 1);
  return { from, to: to > from ? to : from + 1 };
}

export interface ResponseSegment {
  /** An action, or `unanswered`. */
  label: string;
  count: number;
}

export interface IntensityResponses {
  intensity: Intensity;
  signals: number;
  segments: ResponseSegment[];
}

/** For each intensity with signals: its answers per action (in the protocol's order), then the unanswered ones, then those a client could not report (Claude Code). */
export function responseBreakdown(stats: Pick<SignalLogStats, 'by_intensity'>): IntensityResponses[] {
  const result: IntensityResponses[] = [];
  for (const intensity of INTENSITIES) {
    const group = stats.by_intensity[intensity];
    if (!group || group.signals === 0) continue;
    const segments: ResponseSegment[] = ACTIONS_BY_INTENSITY[intensity]
      .map((action) => ({ label: action, count: group.actions[action] ?? 0 }))
      .filter((segment) => segment.count > 0);
    if (group.unanswered > 0) segments.push({ label: 'unanswered', count: group.unanswered });
    if ((group.not_reported ?? 0) > 0) segments.push({ label: 'not reported by the client', count: group.not_reported ?? 0 });
    result.push({ intensity, signals: group.signals, segments });
  }
  return result;
}

/** One rule's signals and what agents did with them: the per-rule view of the signal page. */
export interface RuleSummary {
  rule: string;
  signals: number;
  /** Signals per intensity, strongest first (a rule with an escalation ladder shows each step it reached). */
  intensities: { intensity: Intensity; count: number }[];
  answered: number;
  /** Answers that went against the signal: a block overridden at the agent's own risk, a modification rejected, a prompt dismissed. */
  overridden: number;
  /** Blocks the agent gave up on (`abort`). */
  abandoned: number;
  unanswered: number;
  /** Of the answered signals, the share overridden (0…1); 0 with no answer. */
  overriddenShare: number;
  /** The action that answered it most often, with its count. */
  topAnswer?: { action: string; count: number };
}

/** The answers that go against the signal they answer. */
export const OVERRIDING_ACTIONS = ['proceed_with_risk', 'reject_modification', 'dismiss'] as const;

export type RuleOrder = 'signals' | 'overridden' | 'unanswered';

/** The per-rule statistics (`by_rule`) as rows, most signals first — or most overridden / unanswered first. */
export function ruleSummaries(stats: Pick<SignalLogStats, 'by_rule'>, order: RuleOrder = 'signals'): RuleSummary[] {
  const rows = Object.entries(stats.by_rule).map(([rule, group]): RuleSummary => {
    const actions = group.actions as Partial<Record<string, number>>;
    const overridden = OVERRIDING_ACTIONS.reduce((sum, action) => sum + (actions[action] ?? 0), 0);
    const top = Object.entries(actions).reduce<{ action: string; count: number } | undefined>(
      (best, [action, count]) => (count !== undefined && count > 0 && (best === undefined || count > best.count) ? { action, count } : best),
      undefined,
    );
    return {
      rule,
      signals: group.signals,
      intensities: INTENSITIES.map((intensity) => ({ intensity, count: group.intensities[intensity] ?? 0 })).filter((entry) => entry.count > 0),
      answered: group.consumed,
      overridden,
      abandoned: actions['abort'] ?? 0,
      unanswered: group.unanswered,
      overriddenShare: group.consumed === 0 ? 0 : overridden / group.consumed,
      ...(top ? { topAnswer: top } : {}),
    };
  });
  const key: Record<RuleOrder, (row: RuleSummary) => number> = { signals: (row) => row.signals, overridden: (row) => row.overridden, unanswered: (row) => row.unanswered };
  return rows.sort((a, b) => key[order](b) - key[order](a) || b.signals - a.signals || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
}
