/**
 * Whether the live feed is still alive, and what time it is on the gateway. Pure: times are
 * arguments. The gateway sends a `heartbeat` every `interval_ms`; a stream that stays silent for
 * {@link STALL_AFTER_INTERVALS} intervals is stalled (a hung gateway or a half-open connection
 * raises no error on an EventSource), and the page must stop calling its data live.
 */

/** Heartbeats a stream may miss before it counts as stalled. */
export const STALL_AFTER_INTERVALS = 3;
/** The interval assumed until the first heartbeat says otherwise (the gateway's default). */
export const DEFAULT_HEARTBEAT_MS = 2_000;

/** True when nothing arrived on the stream for too long. */
export function isStalled(lastEventAtMs: number, nowMs: number, heartbeatMs: number): boolean {
  return nowMs - lastEventAtMs > STALL_AFTER_INTERVALS * heartbeatMs;
}

/**
 * The gateway's clock minus this browser's, from an event stamped `serverAtIso` that arrived at
 * `receivedAtMs`. The event's transit makes this read a little low, which only matters to the
 * second; a browser whose clock is minutes off (a laptop that slept, no NTP) is what it corrects.
 * `undefined` when the stamp does not parse.
 */
export function clockOffsetMs(serverAtIso: string, receivedAtMs: number): number | undefined {
  const serverAt = Date.parse(serverAtIso);
  return Number.isNaN(serverAt) ? undefined : serverAt - receivedAtMs;
}
