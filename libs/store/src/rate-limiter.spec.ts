import { describe, expect, it } from 'vitest';
import { StoreDataError, StoreInputError } from './errors.js';
import { decodeRateReply, emissionIntervalUs } from './rate-limiter.js';

describe('emissionIntervalUs', () => {
  it('is one second over the rate, in whole microseconds, at least one', () => {
    expect(emissionIntervalUs({ ratePerSecond: 100, burst: 10 })).toBe(10_000);
    expect(emissionIntervalUs({ ratePerSecond: 0.5, burst: 1 })).toBe(2_000_000);
    expect(emissionIntervalUs({ ratePerSecond: 3, burst: 1 })).toBe(333_333);
    expect(emissionIntervalUs({ ratePerSecond: 1_000_000, burst: 1 })).toBe(1);
  });

  it('refuses rates and bursts that cannot be a bucket', () => {
    for (const limit of [
      { ratePerSecond: 0, burst: 1 },
      { ratePerSecond: -1, burst: 1 },
      { ratePerSecond: Number.NaN, burst: 1 },
      { ratePerSecond: 2_000_000, burst: 1 },
      { ratePerSecond: 1, burst: 0 },
      { ratePerSecond: 1, burst: 1.5 },
    ]) {
      expect(() => emissionIntervalUs(limit), JSON.stringify(limit)).toThrow(StoreInputError);
    }
  });
});

describe('decodeRateReply', () => {
  it('reads an allowed and a refused reply, rounding the wait up to whole milliseconds', () => {
    expect(decodeRateReply([1, 0, 7, 1], 'k')).toEqual({ allowed: true, remaining: 7, granted: 1, failedOpen: false });
    expect(decodeRateReply([1, 0, 3, 16], 'k')).toEqual({ allowed: true, remaining: 3, granted: 16, failedOpen: false });
    expect(decodeRateReply([0, 1, 0, 0], 'k')).toEqual({ allowed: false, retryAfterMs: 1 });
    expect(decodeRateReply([0, 2_000_001, 0, 0], 'k')).toEqual({ allowed: false, retryAfterMs: 2001 });
  });

  it('reports a reply of another shape as store data trouble', () => {
    expect(() => decodeRateReply('OK', 'k')).toThrow(StoreDataError);
    expect(() => decodeRateReply([1, '0', 2, 1], 'k')).toThrow(StoreDataError);
    expect(() => decodeRateReply([1, 0, 2], 'k')).toThrow(StoreDataError);
  });
});
