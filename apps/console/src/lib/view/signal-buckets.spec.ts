import { describe, expect, it } from 'vitest';
import type { SignalLogStats } from '@ahp/protocol';
import { bucketByIntensity, chartRange, responseBreakdown, ruleSummaries } from './signal-buckets';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();
const t0 = Date.parse(at(0));

describe('bucketByIntensity', () => {
  it('counts each intensity in equal time buckets', () => {
    const buckets = bucketByIntensity(
      [
        { timestamp: at(0), intensity: 'block' },
        { timestamp: at(5), intensity: 'aid' },
        { timestamp: at(5), intensity: 'aid' },
        { timestamp: at(19), intensity: 'control' },
      ],
      t0,
      t0 + 20_000,
      4,
    );
    expect(buckets.map((bucket) => bucket.total)).toEqual([1, 2, 0, 1]);
    expect(buckets[1]?.counts).toEqual({ block: 0, control: 0, prompt: 0, aid: 2 });
    expect(buckets[3]?.counts.control).toBe(1);
    expect(buckets.at(-1)?.end).toBe(t0 + 20_000);
  });

  it('ignores lines outside the range and survives an empty one', () => {
    const buckets = bucketByIntensity([{ timestamp: at(30), intensity: 'block' }, { timestamp: 'nonsense', intensity: 'block' }], t0, t0, 3);
    expect(buckets).toHaveLength(3);
    expect(buckets.reduce((sum, bucket) => sum + bucket.total, 0)).toBe(0);
  });
});

describe('chartRange', () => {
  it('fits the lines, padded, inside a wide filter window', () => {
    const lines = [{ timestamp: at(0) }, { timestamp: at(100) }, { timestamp: 'nonsense' }];
    expect(chartRange(lines, new Date(t0 - 86_400_000).toISOString(), undefined, t0 + 3_600_000)).toEqual({ from: t0 - 5_000, to: t0 + 105_001 });
  });

  it('gives a single line at least a minute around it, and never leaves the filter bounds', () => {
    expect(chartRange([{ timestamp: at(30) }], undefined, undefined, t0 + 99_000)).toEqual({ from: t0, to: t0 + 60_001 });
    expect(chartRange([{ timestamp: at(30) }], at(10), at(40), t0 + 99_000)).toEqual({ from: t0 + 10_000, to: t0 + 40_000 });
  });

  it('without lines spans the filter window, ending now when open-ended', () => {
    expect(chartRange([], at(0), at(10), t0 + 99_000)).toEqual({ from: t0, to: t0 + 10_000 });
    expect(chartRange([], undefined, undefined, t0 + 3_600_000)).toEqual({ from: t0, to: t0 + 3_600_000 });
  });
});

describe('ruleSummaries', () => {
  const group = (signals: number, consumed: number, unanswered: number, intensities: Record<string, number>, actions: Record<string, number>) => ({ signals, consumed, unanswered, intensities, actions });
  const stats = {
    by_rule: {
      'no-sudo': group(6, 5, 1, { block: 6 }, { retry_after_fix: 2, proceed_with_risk: 2, abort: 1 }),
      'big-diff': group(9, 9, 0, { prompt: 7, block: 2 }, { acknowledge: 4, dismiss: 3, retry_after_fix: 2 }),
      quiet: group(2, 0, 2, { aid: 2 }, {}),
    },
  } as unknown as Pick<SignalLogStats, 'by_rule'>;

  it('counts what agents overrode, abandoned and left unanswered per rule, most signals first', () => {
    const rows = ruleSummaries(stats);
    expect(rows.map((row) => row.rule)).toEqual(['big-diff', 'no-sudo', 'quiet']);
    expect(rows[0]).toMatchObject({ signals: 9, overridden: 3, abandoned: 0, overriddenShare: 3 / 9, topAnswer: { action: 'acknowledge', count: 4 } });
    expect(rows[0]?.intensities).toEqual([
      { intensity: 'block', count: 2 },
      { intensity: 'prompt', count: 7 },
    ]);
    expect(rows[1]).toMatchObject({ overridden: 2, abandoned: 1, unanswered: 1, overriddenShare: 2 / 5 });
    expect(rows[2]).toMatchObject({ answered: 0, overriddenShare: 0 });
    expect(rows[2]?.topAnswer).toBeUndefined();
  });

  it('orders by overridden or unanswered on request', () => {
    expect(ruleSummaries(stats, 'overridden').map((row) => row.rule)).toEqual(['big-diff', 'no-sudo', 'quiet']);
    expect(ruleSummaries(stats, 'unanswered').map((row) => row.rule)).toEqual(['quiet', 'no-sudo', 'big-diff']);
  });
});

describe('responseBreakdown', () => {
  it('lists answers per action in protocol order, then the unanswered ones', () => {
    const stats: Pick<SignalLogStats, 'by_intensity'> = {
      by_intensity: {
        block: { signals: 5, consumed: 4, unanswered: 1, intensities: { block: 5 }, actions: { abort: 1, retry_after_fix: 3 } },
        aid: { signals: 0, consumed: 0, unanswered: 0, intensities: {}, actions: {} },
        control: { signals: 2, consumed: 2, unanswered: 0, intensities: { control: 2 }, actions: { accept_modification: 2 } },
      },
    };
    expect(responseBreakdown(stats)).toEqual([
      { intensity: 'block', signals: 5, segments: [{ label: 'retry_after_fix', count: 3 }, { label: 'abort', count: 1 }, { label: 'unanswered', count: 1 }] },
      { intensity: 'control', signals: 2, segments: [{ label: 'accept_modification', count: 2 }] },
    ]);
  });

  it('counts the signals a client could not report apart from the unanswered ones', () => {
    const stats: Pick<SignalLogStats, 'by_intensity'> = {
      by_intensity: { control: { signals: 3, consumed: 1, unanswered: 0, not_reported: 2, inferred: 1, intensities: { control: 3 }, actions: { accept_modification: 1 } } },
    };
    expect(responseBreakdown(stats)).toEqual([
      { intensity: 'control', signals: 3, segments: [{ label: 'accept_modification', count: 1 }, { label: 'not reported by the client', count: 2 }] },
    ]);
  });
});
