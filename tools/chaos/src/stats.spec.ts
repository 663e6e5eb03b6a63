import { describe, expect, it } from 'vitest';
import { distribution, quantile } from './stats.js';

describe('distribution', () => {
  it('uses nearest-rank quantiles over any order', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1
    expect(distribution(values)).toEqual({ count: 100, min: 1, p50: 50, p90: 90, p99: 99, max: 100 });
  });

  it('is all zeros for an empty sample', () => {
    expect(distribution([])).toEqual({ count: 0, min: 0, p50: 0, p90: 0, p99: 0, max: 0 });
    expect(quantile([], 0.5)).toBe(0);
  });

  it('returns the only value of a one-element sample at every quantile', () => {
    expect(distribution([7])).toMatchObject({ min: 7, p50: 7, p99: 7, max: 7 });
  });
});
