import { describe, expect, it } from 'vitest';
import { LatencyRecorder, mergeSamples, percentile, summarize } from './latency.js';

describe('percentile (nearest rank)', () => {
  const oneToHundred = Float64Array.from({ length: 100 }, (_, i) => i + 1);

  it('returns observed values: the p-th of 100 ascending samples is the p-th sample', () => {
    expect(percentile(oneToHundred, 50)).toBe(50);
    expect(percentile(oneToHundred, 99)).toBe(99);
    expect(percentile(oneToHundred, 100)).toBe(100);
    expect(percentile(oneToHundred, 0.5)).toBe(1);
  });

  it('rounds the rank up, so a tail percentile of few samples is the worst of them', () => {
    const ten = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(percentile(ten, 99)).toBe(10);
    expect(percentile(ten, 99.9)).toBe(10);
    expect(percentile(ten, 91)).toBe(10);
    expect(percentile(ten, 90)).toBe(9);
  });

  it('is NaN without samples and refuses percentiles outside (0, 100]', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile(oneToHundred, 0)).toThrow(RangeError);
    expect(() => percentile(oneToHundred, 101)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('sorts numerically (not as strings) before ranking', () => {
    const summary = summarize([10, 9, 100, 2, 1]);
    expect(summary).toMatchObject({ count: 5, min: 1, max: 100, p50: 9 });
    expect(summary.mean).toBeCloseTo(24.4);
  });

  it('reports p999 separately from p99 once there are enough samples', () => {
    const samples = Array.from({ length: 10_000 }, (_, i) => (i < 9_990 ? 1 : 1000));
    const summary = summarize(samples);
    expect(summary.p99).toBe(1);
    expect(summary.p999).toBe(1);
    const heavier = Array.from({ length: 10_000 }, (_, i) => (i < 9_980 ? 1 : 1000));
    expect(summarize(heavier).p999).toBe(1000);
  });

  it('gives NaN figures and count 0 for no samples', () => {
    const summary = summarize([]);
    expect(summary.count).toBe(0);
    expect(summary.p50).toBeNaN();
    expect(summary.mean).toBeNaN();
  });
});

describe('LatencyRecorder', () => {
  it('keeps every sample in order across growth', () => {
    const recorder = new LatencyRecorder(16);
    for (let i = 0; i < 1000; i += 1) recorder.record(i / 10);
    expect(recorder.count).toBe(1000);
    const samples = recorder.toArray();
    expect(samples.length).toBe(1000);
    expect(samples[0]).toBe(0);
    expect(samples[999]).toBeCloseTo(99.9);
  });

  it('refuses negative and non-finite latencies', () => {
    const recorder = new LatencyRecorder();
    expect(() => recorder.record(-1)).toThrow(RangeError);
    expect(() => recorder.record(Number.NaN)).toThrow(RangeError);
    expect(() => recorder.record(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('mergeSamples', () => {
  it('concatenates the parts in order', () => {
    expect([...mergeSamples([[1, 2], Float64Array.from([3]), []])]).toEqual([1, 2, 3]);
  });
});
