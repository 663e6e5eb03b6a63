import { describe, expect, it } from 'vitest';
import { highestPassing, nextRate, type RateStep } from './rate-search.js';

/** Runs the search against a system that sustains up to `capacity` requests per second. */
function search(capacity: number, startRate: number, options: { refinements?: number; maxSteps?: number } = {}): RateStep[] {
  const history: RateStep[] = [];
  for (let rate = nextRate(history, { startRate, ...options }); rate !== undefined; rate = nextRate(history, { startRate, ...options })) {
    history.push({ rate, passed: rate <= capacity });
  }
  return history;
}

describe('rate search', () => {
  it('starts at the start rate, rounded to the granularity', () => {
    expect(nextRate([], { startRate: 1234 })).toBe(1230);
  });

  it('grows by the growth factor while steps pass', () => {
    expect(nextRate([{ rate: 1000, passed: true }], { startRate: 1000 })).toBe(1250);
    expect(nextRate([{ rate: 1000, passed: true }], { startRate: 1000, growth: 2 })).toBe(2000);
  });

  it('bisects between the best pass and the first failure, then stops', () => {
    const history = search(1400, 1000);
    expect(history.map((step) => step.rate)).toEqual([1000, 1250, 1560, 1410, 1330]);
    expect(highestPassing(history)).toBe(1330);
  });

  it('halves a failing first step until one passes, then refines upwards', () => {
    const history = search(300, 1000);
    expect(history.map((step) => step.rate)).toEqual([1000, 500, 250, 380, 320]);
    expect(highestPassing(history)).toBe(250);
  });

  it('stops after maxSteps even if nothing failed', () => {
    expect(search(1e9, 100, { maxSteps: 4 })).toHaveLength(4);
  });

  it('stops when the bracket is narrower than two granularity units', () => {
    const history: RateStep[] = [
      { rate: 100, passed: true },
      { rate: 110, passed: false },
    ];
    expect(nextRate(history, { startRate: 100 })).toBeUndefined();
  });

  it('has no passing rate when every step failed', () => {
    expect(highestPassing(search(1, 40))).toBeUndefined();
  });
});
