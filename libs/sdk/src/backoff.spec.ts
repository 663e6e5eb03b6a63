import { describe, expect, it } from 'vitest';
import { Backoff, DEFAULT_BACKOFF, backoffCeiling, backoffDelay, goawayDelay, resolveBackoffOptions } from './backoff.js';

/** A random source that replays `values` in a loop. */
function replay(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

describe('backoff options', () => {
  it('defaults to 100 ms initial, 10 s max, factor 2, reset after 5 s', () => {
    const options = resolveBackoffOptions();
    expect(options).toMatchObject({ initialDelayMs: 100, maxDelayMs: 10_000, factor: 2, resetAfterMs: 5_000 });
    expect(options.random).toBe(Math.random);
    expect(DEFAULT_BACKOFF.initialDelayMs).toBe(100);
  });

  it('rejects values that would break the schedule, naming the option', () => {
    expect(() => resolveBackoffOptions({ initialDelayMs: -1 })).toThrow(/initialDelayMs/);
    expect(() => resolveBackoffOptions({ maxDelayMs: Number.NaN })).toThrow(/maxDelayMs/);
    expect(() => resolveBackoffOptions({ factor: 0.5 })).toThrow(/factor/);
    expect(() => resolveBackoffOptions({ initialDelayMs: 500, maxDelayMs: 100 })).toThrow(/maxDelayMs/);
  });
});

describe('backoffCeiling', () => {
  it('grows by the factor from the initial delay and stops at the maximum', () => {
    const options = resolveBackoffOptions();
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((n) => backoffCeiling(n, options))).toEqual([
      100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000,
    ]);
    expect(backoffCeiling(10_000, options)).toBe(10_000);
  });
});

describe('backoffDelay (full jitter)', () => {
  it('draws from 0 up to the ceiling, never beyond', () => {
    expect(backoffDelay(3, resolveBackoffOptions({ random: () => 0 }))).toBe(0);
    expect(backoffDelay(3, resolveBackoffOptions({ random: () => 0.5 }))).toBe(400);
    expect(backoffDelay(3, resolveBackoffOptions({ random: () => 0.999_999 }))).toBeLessThan(800);
    // A broken random source cannot push the delay out of range.
    expect(backoffDelay(3, resolveBackoffOptions({ random: () => 7 }))).toBeLessThan(800);
    expect(backoffDelay(3, resolveBackoffOptions({ random: () => -3 }))).toBe(0);
  });

  it('stays within [0, ceiling) for every attempt with the real random source', () => {
    const options = resolveBackoffOptions({ initialDelayMs: 10, maxDelayMs: 1_000 });
    for (let attempt = 0; attempt < 40; attempt++) {
      for (let draw = 0; draw < 25; draw++) {
        const delay = backoffDelay(attempt, options);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(backoffCeiling(attempt, options));
        expect(Number.isInteger(delay)).toBe(true);
      }
    }
  });
});

describe('Backoff', () => {
  it('counts attempts and draws each delay against a growing ceiling', () => {
    const backoff = new Backoff({ random: () => 0.5 });
    expect([0, 1, 2, 3].map(() => backoff.next(0))).toEqual([50, 100, 200, 400]);
    expect(backoff.attempt).toBe(4);
  });

  it('starts over once a connection stayed open for resetAfterMs', () => {
    const backoff = new Backoff({ random: () => 0.5, resetAfterMs: 1_000 });
    backoff.next(0);
    backoff.next(0);
    backoff.next(0);
    backoff.opened(10_000);
    expect(backoff.next(11_000)).toBe(50);
    expect(backoff.attempt).toBe(1);
  });

  it('keeps growing when a connection dies before resetAfterMs (a flapping gateway is not hammered)', () => {
    const backoff = new Backoff({ random: () => 0.5, resetAfterMs: 1_000 });
    backoff.next(0);
    backoff.next(0);
    backoff.opened(10_000);
    expect(backoff.next(10_999)).toBe(200);
  });

  it('reset() starts over at once', () => {
    const backoff = new Backoff({ random: replay(0.5) });
    backoff.next(0);
    backoff.next(0);
    backoff.reset();
    expect(backoff.attempt).toBe(0);
    expect(backoff.next(0)).toBe(50);
  });
});

describe('goawayDelay', () => {
  it('waits at least what the gateway asked, plus up to as much again of jitter', () => {
    const options = resolveBackoffOptions({ random: () => 0 });
    expect(goawayDelay(2_000, options)).toBe(2_000);
    expect(goawayDelay(2_000, resolveBackoffOptions({ random: () => 0.5 }))).toBe(3_000);
    expect(goawayDelay(2_000, resolveBackoffOptions({ random: () => 0.999_999 }))).toBeLessThan(4_000);
  });

  it('spreads an immediate goaway over the initial delay so agents do not arrive together', () => {
    expect(goawayDelay(0, resolveBackoffOptions({ random: () => 0.5 }))).toBe(50);
  });
});
