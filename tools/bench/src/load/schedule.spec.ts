import { describe, expect, it } from 'vitest';
import { dueCount, requestsInRun, scheduledOffsetMs } from './schedule.js';

describe('open-loop schedule', () => {
  it('spaces requests evenly at the given rate', () => {
    expect(scheduledOffsetMs(0, 1000)).toBe(0);
    expect(scheduledOffsetMs(1, 1000)).toBe(1);
    expect(scheduledOffsetMs(250, 500)).toBe(500);
    expect(scheduledOffsetMs(3, 3)).toBe(1000);
  });

  it('makes the first request due at once and the next ones as time passes', () => {
    expect(dueCount(0, 100, 1000)).toBe(1);
    expect(dueCount(9.99, 100, 1000)).toBe(1);
    expect(dueCount(10, 100, 1000)).toBe(2);
    expect(dueCount(1000, 100, 1000)).toBe(101);
  });

  it('catches up after a stall: everything due meanwhile is due now, not dropped', () => {
    // A load generator that was blocked for 250 ms at 1000/s owes 250 requests at once.
    expect(dueCount(250, 1000, 10_000) - dueCount(0, 1000, 10_000)).toBe(250);
  });

  it('agrees with scheduledOffsetMs: request i is due exactly at its offset', () => {
    for (const rate of [7, 333, 2500]) {
      for (const index of [1, 17, 123]) {
        const at = scheduledOffsetMs(index, rate);
        expect(dueCount(at, rate, 10_000)).toBe(index + 1);
        expect(dueCount(at - 0.01, rate, 10_000)).toBe(index);
      }
    }
  });

  it('never exceeds the run total and is zero before the start', () => {
    expect(dueCount(1e9, 100, 42)).toBe(42);
    expect(dueCount(-5, 100, 42)).toBe(0);
  });

  it('sizes a run from rate and duration, at least one request', () => {
    expect(requestsInRun(3000, 10_000)).toBe(30_000);
    expect(requestsInRun(1, 10)).toBe(1);
  });

  it('refuses rates that are not positive', () => {
    expect(() => dueCount(1, 0, 1)).toThrow(RangeError);
    expect(() => scheduledOffsetMs(1, Number.NaN)).toThrow(RangeError);
  });
});
