/**
 * When to try the live feed again after it failed: exponential backoff from half a second up to
 * ten seconds, with jitter so that every operator's tab does not hit a restarted gateway at once.
 */

export const RECONNECT_BASE_MS = 500;
export const RECONNECT_MAX_MS = 10_000;

/** Delay before attempt `attempt` (0 for the first retry); `random` in [0, 1) picks the jitter. */
export function reconnectDelayMs(attempt: number, random: number): number {
  const ceiling = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.max(0, Math.min(attempt, 20)));
  // Equal jitter: at least half the ceiling, so retries never bunch up at zero.
  return Math.round(ceiling / 2 + (ceiling / 2) * Math.min(Math.max(random, 0), 1));
}
