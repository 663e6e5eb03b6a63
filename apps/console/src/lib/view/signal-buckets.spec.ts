import { describe, expect, it } from 'vitest';
import type { SignalLogStats } from '@ahp/protocol';
import { bucketByIntensity, chartRange, responseBreakdown } from './signal-buckets';

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
  it('uses the filter bounds when given', () => {
    expect(chartRange([], at(0), at(10), t0 + 99_000)).toEqual({ from: t0, to: t0 + 10_000 });
  });

  it('otherwise spans the lines up to now', () => {
    expect(chartRange([{ timestamp: at(3) }, { timestamp: at(8) }], undefined, undefined, t0 + 60_000)).toEqual({ from: t0 + 3_000, to: t0 + 60_000 });
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
