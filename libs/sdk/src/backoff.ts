/**
 * Reconnect delays: exponential backoff with full jitter. Pure functions plus a small counter,
 * with the clock and the random source passed in, so the policy is testable without timers.
 *
 * Full jitter (a uniform draw between 0 and the exponential ceiling) rather than a fixed delay:
 * when a gateway instance dies, every agent it served loses its connection at the same instant,
 * and un-jittered retries would arrive at the next instance as one wave after another.
 */

/** How reconnect delays grow. Every field is optional; the defaults suit a control plane on a LAN or in one region. */
export interface BackoffOptions {
  /**
   * Ceiling of the first delay. Small, because the first retry usually lands on a healthy
   * instance behind the load balancer.
   * @defaultValue 100
   */
  initialDelayMs?: number;
  /**
   * Largest ceiling: however long an outage lasts, an agent retries at least this often.
   * @defaultValue 10_000
   */
  maxDelayMs?: number;
  /**
   * Growth of the ceiling per failed attempt.
   * @defaultValue 2
   */
  factor?: number;
  /**
   * A connection that stays open (welcomed) at least this long counts as healthy: the next
   * failure starts again from `initialDelayMs`. Shorter-lived connections keep the growth, so a
   * gateway that accepts and drops at once is not hammered.
   * @defaultValue 5_000
   */
  resetAfterMs?: number;
  /**
   * The random source, returning a number in [0, 1). Injectable for tests.
   * @defaultValue Math.random
   */
  random?: () => number;
}

/** {@link BackoffOptions} with every default applied. */
export type ResolvedBackoffOptions = Readonly<Required<BackoffOptions>>;

/** The defaults of {@link BackoffOptions}. */
export const DEFAULT_BACKOFF: ResolvedBackoffOptions = Object.freeze({
  initialDelayMs: 100,
  maxDelayMs: 10_000,
  factor: 2,
  resetAfterMs: 5_000,
  random: Math.random,
});

/**
 * Applies the defaults and checks the values, throwing a `TypeError` that names the bad option:
 * a misconfigured backoff is a programming error, better found at start than during an outage.
 */
export function resolveBackoffOptions(options: BackoffOptions = {}): ResolvedBackoffOptions {
  const resolved = {
    initialDelayMs: options.initialDelayMs ?? DEFAULT_BACKOFF.initialDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs,
    factor: options.factor ?? DEFAULT_BACKOFF.factor,
    resetAfterMs: options.resetAfterMs ?? DEFAULT_BACKOFF.resetAfterMs,
    random: options.random ?? DEFAULT_BACKOFF.random,
  };
  for (const key of ['initialDelayMs', 'maxDelayMs', 'resetAfterMs'] as const) {
    const value = resolved[key];
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`backoff.${key} must be a finite number >= 0, got ${value}`);
  }
  if (!Number.isFinite(resolved.factor) || resolved.factor < 1) {
    throw new TypeError(`backoff.factor must be a finite number >= 1, got ${resolved.factor}`);
  }
  if (resolved.maxDelayMs < resolved.initialDelayMs) {
    throw new TypeError(`backoff.maxDelayMs (${resolved.maxDelayMs}) must not be below initialDelayMs (${resolved.initialDelayMs})`);
  }
  if (typeof resolved.random !== 'function') throw new TypeError('backoff.random must be a function');
  return Object.freeze(resolved);
}

/** The upper bound of the delay before retry number `attempt` (0-based): `min(max, initial × factor^attempt)`. */
export function backoffCeiling(attempt: number, options: ResolvedBackoffOptions): number {
  // Math.pow overflows to Infinity for large attempts, which min() then caps: no special case needed.
  return Math.min(options.maxDelayMs, options.initialDelayMs * Math.pow(options.factor, Math.max(0, attempt)));
}

/** The delay before retry number `attempt`: a uniform draw in [0, ceiling), in whole milliseconds. */
export function backoffDelay(attempt: number, options: ResolvedBackoffOptions): number {
  const ceiling = backoffCeiling(attempt, options);
  const draw = clampUnit(options.random());
  return Math.floor(draw * ceiling);
}

/**
 * The wait after a `goaway` that asked for `reconnectAfterMs`: at least that, plus up to as much
 * again (and at least up to `initialDelayMs`) of jitter, because a draining gateway sends its
 * goaway to all its agents at once and they should not all arrive at the next one together.
 */
export function goawayDelay(reconnectAfterMs: number, options: ResolvedBackoffOptions): number {
  const base = Math.max(0, reconnectAfterMs);
  const spread = Math.max(options.initialDelayMs, base);
  return Math.floor(base + clampUnit(options.random()) * spread);
}

function clampUnit(value: number): number {
  if (!Number.isFinite(value) || value < 0) return 0;
  return value >= 1 ? 1 - Number.EPSILON : value;
}

/**
 * The attempt counter of one connection. `next(now)` gives the delay before the next attempt;
 * `opened(now)` records that a connection was established, so that a later `next` starts over
 * once the connection has lived `resetAfterMs`. Times are passed in: this class reads no clock.
 */
export class Backoff {
  readonly options: ResolvedBackoffOptions;
  #attempt = 0;
  #openedAt: number | undefined;

  constructor(options: BackoffOptions = {}) {
    this.options = resolveBackoffOptions(options);
  }

  /** Failed attempts since the last reset; the next delay is drawn for this attempt number. */
  get attempt(): number {
    return this.#attempt;
  }

  /** A connection was established at `now` (for the SDK: the gateway's `welcome` arrived). */
  opened(now: number): void {
    this.#openedAt = now;
  }

  /** The connection failed or ended at `now`: returns how long to wait before the next attempt. */
  next(now: number): number {
    if (this.#openedAt !== undefined && now - this.#openedAt >= this.options.resetAfterMs) this.#attempt = 0;
    this.#openedAt = undefined;
    const delay = backoffDelay(this.#attempt, this.options);
    this.#attempt += 1;
    return delay;
  }

  /** Starts over from `initialDelayMs`. */
  reset(): void {
    this.#attempt = 0;
    this.#openedAt = undefined;
  }
}
