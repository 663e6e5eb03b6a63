import { latencyBucket, latencyPercentiles } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { LatencyWindow } from './latency-window.js';

describe('LatencyWindow', () => {
  it('counts recent latencies per bucket', () => {
    const window = new LatencyWindow(60_000, 6);
    window.record(1, 1_000);
    window.record(1, 2_000);
    window.record(40, 3_000);
    const counts = window.counts(3_000);
    expect(counts[latencyBucket(1)]).toBe(2);
    expect(counts[latencyBucket(40)]).toBe(1);
    expect(latencyPercentiles(counts).samples).toBe(3);
  });

  it('forgets slots older than the window, and recycles a slot when its time comes round again', () => {
    const window = new LatencyWindow(60_000, 6);
    window.record(5, 0);
    window.record(5, 30_000);
    expect(latencyPercentiles(window.counts(59_999)).samples).toBe(2);
    expect(latencyPercentiles(window.counts(60_000)).samples).toBe(1);
    window.record(7, 60_500); // same slot index as t=0: starts from zero
    const counts = window.counts(60_500);
    expect(counts[latencyBucket(5)]).toBe(1);
    expect(counts[latencyBucket(7)]).toBe(1);
  });
});
