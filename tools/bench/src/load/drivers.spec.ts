import { describe, expect, it } from 'vitest';
import { closedLoop, errorCode, latencyOf, openLoop } from './drivers.js';

const failWith = (code: string) => Object.assign(new Error(code), { code });

describe('closed loop', () => {
  it('runs exactly `count` operations with at most `concurrency` at once', async () => {
    let active = 0;
    let peak = 0;
    const run = await closedLoop({
      count: 50,
      concurrency: 4,
      op: async () => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setImmediate(resolve));
        active -= 1;
      },
    });
    expect(run).toMatchObject({ sent: 50, completed: 50, errors: 0 });
    expect(run.samples).toHaveLength(50);
    expect(peak).toBe(4);
  });

  it('tallies failures by code and keeps only successful latencies', async () => {
    const run = await closedLoop({
      count: 10,
      concurrency: 1,
      op: async (index) => {
        if (index % 5 === 0) throw failWith('E_TIMEOUT');
        if (index === 3) throw new Error('plain');
      },
    });
    expect(run).toMatchObject({ completed: 7, errors: 3, errorCodes: { E_TIMEOUT: 2, error: 1 } });
  });
});

describe('open loop', () => {
  it('starts rate × duration operations, spread over the duration', async () => {
    const run = await openLoop({ rate: 1000, durationMs: 50, drainMs: 100, op: async () => undefined });
    expect(run).toMatchObject({ sent: 50, completed: 50, errors: 0 });
    expect(run.elapsedMs).toBeGreaterThanOrEqual(48);
  });

  it('measures from the due time, so a stall is charged to every operation it delayed', async () => {
    const run = await openLoop({
      rate: 1000,
      durationMs: 20,
      drainMs: 100,
      op: async (index) => {
        if (index === 0) {
          const until = performance.now() + 30;
          while (performance.now() < until) {
            // a load generator (or a system) that blocks for 30 ms
          }
        }
      },
    });
    // Operation 1 was due at 1 ms but could only start after the 30 ms stall.
    expect(Math.max(...run.samples)).toBeGreaterThanOrEqual(25);
    expect(run.maxStartLagMs).toBeGreaterThanOrEqual(25);
  });

  it('gives up on operations still unfinished after the drain time and counts them as failed', async () => {
    const run = await openLoop({ rate: 1000, durationMs: 10, drainMs: 20, op: () => new Promise(() => undefined) });
    expect(run).toMatchObject({ sent: 10, completed: 0, errors: 10, errorCodes: { E_UNFINISHED: 10 } });
  });
});

describe('reported latency', () => {
  it('records what an operation reports as its measured part instead of its whole duration', async () => {
    const run = await closedLoop({
      count: 3,
      concurrency: 1,
      op: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { latencyMs: 0.25 };
      },
    });
    expect([...run.samples]).toEqual([0.25, 0.25, 0.25]);
  });

  it('falls back to the measured duration for anything else', () => {
    expect(latencyOf(undefined, 3)).toBe(3);
    expect(latencyOf({ latencyMs: -1 }, 3)).toBe(3);
    expect(latencyOf({ latencyMs: 'fast' }, 3)).toBe(3);
  });
});

describe('errorCode', () => {
  it('uses a string code when there is one', () => {
    expect(errorCode(failWith('E_CLOSED'))).toBe('E_CLOSED');
    expect(errorCode(new Error('x'))).toBe('error');
    expect(errorCode(null)).toBe('error');
  });
});
