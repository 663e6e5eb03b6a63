/**
 * Open-loop arrival times. Requests are due at fixed times (`start + i / rate`), whatever the
 * system answers; a request's latency is measured from when it was due, not from when the load
 * generator got round to sending it. A slow phase therefore shows up as latency for every
 * request scheduled during it, instead of silently lowering the offered rate (coordinated
 * omission).
 */

/** Offset in milliseconds from the start of the run at which request `index` (0-based) is due. */
export function scheduledOffsetMs(index: number, ratePerSecond: number): number {
  checkRate(ratePerSecond);
  return (index * 1000) / ratePerSecond;
}

/**
 * How many requests are due `elapsedMs` after the start: request 0 is due at once, request `i`
 * at `i / rate` seconds; never more than `total`.
 */
export function dueCount(elapsedMs: number, ratePerSecond: number, total: number): number {
  checkRate(ratePerSecond);
  if (elapsedMs < 0) return 0;
  // The epsilon keeps a request due exactly now from being pushed to the next tick by rounding.
  return Math.min(total, Math.floor((elapsedMs * ratePerSecond) / 1000 + 1e-9) + 1);
}

/** Requests in a run of `durationMs` at `ratePerSecond` (at least one). */
export function requestsInRun(ratePerSecond: number, durationMs: number): number {
  checkRate(ratePerSecond);
  return Math.max(1, Math.round((ratePerSecond * durationMs) / 1000));
}

function checkRate(ratePerSecond: number): void {
  if (!(Number.isFinite(ratePerSecond) && ratePerSecond > 0)) throw new RangeError(`rate must be a positive number, got ${ratePerSecond}`);
}
