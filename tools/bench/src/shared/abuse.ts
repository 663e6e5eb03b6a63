/**
 * What the noisy-neighbour phase and its abusive client (`children/abuser.ts`) say to each other:
 * the abuse to commit, given as the child's one argument, and the report it prints when stopped.
 */

/**
 * The four kinds of abuse of issue 17, each at a fixed intensity (not "as fast as possible": on a
 * two-core machine an unpaced abuser would mostly measure its own CPU use, not the gateway's).
 * - `hook-flood`: valid `pre-tool-use` hooks far above the agent's rate limit, in bursts larger
 *   than `max_in_flight`.
 * - `deep-frames`: ~900 KB frames nested ~450,000 levels deep (invalid: the top level is an array).
 * - `http-bombs`: gzip bodies that inflate ~1,000× to the Claude Code HTTP hook route, no token,
 *   1,000 a second.
 * - `inbox-ack-flood`: `inbox_ack` frames with the most ids a frame may carry, at a high rate.
 */
export const ABUSE_MODES = ['hook-flood', 'deep-frames', 'http-bombs', 'inbox-ack-flood'] as const;
export type AbuseMode = (typeof ABUSE_MODES)[number];

/** The child's argument (JSON). */
export interface AbuseSpec {
  mode: AbuseMode;
  /** The gateway's agent endpoint (`ws://…/v1/agents`). */
  agentUrl: string;
  /** The gateway's HTTP origin (`http://127.0.0.1:port`). */
  httpUrl: string;
  /** The abuser's own agent token (the HTTP bombs go without it). */
  token: string;
}

/** What the abuser saw, printed as one line `{"event":"abuse-report",…}` when it stops. */
export interface AbuseReport {
  mode: AbuseMode;
  /** Frames or HTTP requests sent. */
  sent: number;
  /** WebSocket connections attempted (the abuser reconnects at once after every close). */
  connects: number;
  /** Replies by kind: `decision`, `ack`, or an error frame's code. */
  replies: Record<string, number>;
  /** Connection closes by close code. */
  closes: Record<string, number>;
  /** HTTP statuses (the route's, and refused upgrades'), plus `reset` for a request cut off. */
  httpStatuses: Record<string, number>;
}

/** The tag of the abuser's report line. */
export const ABUSE_REPORT_EVENT = 'abuse-report';

/** Parses the abuser's report line, or undefined for any other line. */
export function parseAbuseReport(line: string): AbuseReport | undefined {
  if (!line.includes(ABUSE_REPORT_EVENT)) return undefined;
  try {
    const parsed = JSON.parse(line) as { event?: unknown; report?: AbuseReport };
    return parsed.event === ABUSE_REPORT_EVENT ? parsed.report : undefined;
  } catch {
    return undefined;
  }
}

/** Adds one to `counts[key]`. */
export function tally(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}
