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

/** The time range a chart covers: the filter's bounds, else the lines' own span (ending at `nowMs` at most). */
export function chartRange(lines: readonly Pick<SignalLogLine, 'timestamp'>[], since: string | undefined, until: string | undefined, nowMs: number): { from: number; to: number } {
  const times = lines.map((line) => Date.parse(line.timestamp)).filter((t) => !Number.isNaN(t));
  const from = since ? Date.parse(since) : times.length ? Math.min(...times) : nowMs - 3_600_000;
  const to = until ? Date.parse(until) : Math.max(nowMs, times.length ? Math.max(...times) + 1 : nowMs);
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
