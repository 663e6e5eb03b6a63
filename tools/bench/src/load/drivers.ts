/**
 * The two ways the load generator drives an operation (a PING, an echo, a job, a hook):
 *
 * - closed loop: `concurrency` callers, each starting the next operation when the previous one
 *   ended; latency from start to end. Right for "one request at a time" latency and for "as
 *   fast as it goes" throughput.
 * - open loop: operations due at a fixed rate whatever happens (see schedule.ts); latency from
 *   the time an operation was due. Right for "latency at a given load".
 *
 * An operation fails by throwing; the error's `code` (or `error`) is tallied. An operation whose
 * measured part is only some of its work (open a request, then time the decision) resolves with
 * `{ latencyMs }`, which is recorded instead of its whole duration.
 */
import { LatencyRecorder } from '../stats/latency.js';
import { dueCount, requestsInRun, scheduledOffsetMs } from './schedule.js';

/** One operation; resolves when it completed, throws when it failed. */
export type Operation = (index: number) => Promise<unknown>;

/** What a run produced. Latencies are of successful operations only; failures are counted by code. */
export interface LoadRun {
  /** Latencies in ms. */
  samples: Float64Array;
  /** Operations started. */
  sent: number;
  /** Operations that completed successfully. */
  completed: number;
  /** Failed operations, including those still unfinished when the run gave up on them. */
  errors: number;
  errorCodes: Record<string, number>;
  /** From the first start to the last completion (or to giving up), ms. */
  elapsedMs: number;
  /** Open loop: the latest any operation was started after it was due, ms (a busy load generator shows here). */
  maxStartLagMs?: number;
}

/** The latency to record for an operation that resolved with `value` after `elapsedMs`. */
export function latencyOf(value: unknown, elapsedMs: number): number {
  const reported = (value as { latencyMs?: unknown } | null | undefined)?.latencyMs;
  return typeof reported === 'number' && Number.isFinite(reported) && reported >= 0 ? reported : elapsedMs;
}

/** The code a failure is counted under. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : 'error';
}

class Tally {
  readonly latencies: LatencyRecorder;
  readonly codes: Record<string, number> = {};
  errors = 0;

  constructor(expected: number) {
    this.latencies = new LatencyRecorder(expected);
  }

  fail(code: string): void {
    this.errors += 1;
    this.codes[code] = (this.codes[code] ?? 0) + 1;
  }
}

/** Options of {@link closedLoop}. */
export interface ClosedLoopOptions {
  /** Callers running at once. */
  concurrency: number;
  /** Stop after this many operations in all. At least one of `count` and `durationMs` is needed. */
  count?: number;
  /** Stop starting operations after this long, ms. */
  durationMs?: number;
  op: Operation;
}

/** Runs `op` in a closed loop; see the module comment. */
export async function closedLoop(options: ClosedLoopOptions): Promise<LoadRun> {
  const { concurrency, count, durationMs, op } = options;
  if (count === undefined && durationMs === undefined) throw new Error('closedLoop needs a count or a duration');
  const tally = new Tally(count ?? 4096);
  const started = performance.now();
  const stopAt = durationMs === undefined ? Number.POSITIVE_INFINITY : started + durationMs;
  let next = 0;
  const more = () => (count === undefined || next < count) && performance.now() < stopAt;
  const caller = async () => {
    while (more()) {
      const index = next++;
      const begin = performance.now();
      try {
        const value = await op(index);
        tally.latencies.record(latencyOf(value, performance.now() - begin));
      } catch (error) {
        tally.fail(errorCode(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, caller));
  return {
    samples: tally.latencies.toArray(),
    sent: next,
    completed: tally.latencies.count,
    errors: tally.errors,
    errorCodes: tally.codes,
    elapsedMs: performance.now() - started,
  };
}

/** Options of {@link openLoop}. */
export interface OpenLoopOptions {
  /** Operations per second. */
  rate: number;
  /** How long operations are started, ms. */
  durationMs: number;
  /** After the last start, how long to wait for outstanding operations before counting them as failed (`E_UNFINISHED`), ms. */
  drainMs: number;
  op: Operation;
}

/** Runs `op` in an open loop at a fixed rate; see the module comment. */
export async function openLoop(options: OpenLoopOptions): Promise<LoadRun> {
  const { rate, durationMs, drainMs, op } = options;
  const total = requestsInRun(rate, durationMs);
  const tally = new Tally(total);
  let sent = 0;
  let settled = 0;
  let maxStartLagMs = 0;
  let lastSettledAt = 0;
  const start = performance.now();
  let allSettled: (() => void) | undefined;

  const launch = (index: number, dueAt: number) => {
    maxStartLagMs = Math.max(maxStartLagMs, performance.now() - dueAt);
    const done = (value: unknown, failed = false) => {
      if (failed) tally.fail(errorCode(value));
      else tally.latencies.record(latencyOf(value, Math.max(0, performance.now() - dueAt)));
      settled += 1;
      lastSettledAt = performance.now();
      if (settled === total) allSettled?.();
    };
    try {
      op(index).then(
        (value: unknown) => done(value),
        (error: unknown) => done(error, true),
      );
    } catch (error) {
      done(error, true);
    }
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = dueCount(now - start, rate, total);
      while (sent < due) {
        launch(sent, start + scheduledOffsetMs(sent, rate));
        sent += 1;
      }
      if (sent >= total) {
        resolve();
        return;
      }
      // Sleep until the next operation is due; timers fire late rather than early, and the
      // lateness is charged to the operations' latency, as it would be for a real caller.
      setTimeout(tick, Math.max(0, start + scheduledOffsetMs(sent, rate) - performance.now()));
    };
    tick();
  });

  if (settled < total) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, drainMs);
      allSettled = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  const unfinished = total - settled;
  for (let i = 0; i < unfinished; i += 1) tally.fail('E_UNFINISHED');
  return {
    samples: tally.latencies.toArray(),
    sent,
    completed: tally.latencies.count,
    errors: tally.errors,
    errorCodes: tally.codes,
    elapsedMs: (unfinished > 0 ? performance.now() : lastSettledAt) - start,
    maxStartLagMs,
  };
}
