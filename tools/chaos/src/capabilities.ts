/**
 * Whether this build's SDK has what the ledger's approvals and inbox tracks drive: plan
 * submission and request handling for approvals, `send` and the idle loop for inboxes. A track
 * whose pieces are missing is reported as not available — never as passed. (Whether the gateway
 * serves them shows in the run itself: a track that gets nothing accepted fails.)
 */
import { AhpClient } from '@ahp/sdk';

/** Whether a track can run, and if not, what is missing. */
export interface TrackAvailability {
  readonly available: boolean;
  /** The missing pieces, empty when available. */
  readonly missing: readonly string[];
}

/** The tracks beyond hooks. */
export interface TrackCapabilities {
  readonly approvals: TrackAvailability;
  readonly inbox: TrackAvailability;
}

function availability(client: object, methods: readonly string[]): TrackAvailability {
  const missing = methods.filter((name) => typeof (client as Record<string, unknown>)[name] !== 'function').map((name) => `AhpClient.${name}`);
  return { available: missing.length === 0, missing };
}

/** Looks at the SDK client this process loaded (or at `client`, in tests). */
export function detectTrackCapabilities(client: object = AhpClient.prototype): TrackCapabilities {
  return {
    approvals: availability(client, ['submitPlan', 'onRequest']),
    inbox: availability(client, ['send', 'idle']),
  };
}

/** The line the run prints about the two tracks. */
export function describeTrackCapabilities(capabilities: TrackCapabilities): string {
  const { approvals, inbox } = capabilities;
  if (!approvals.available && !inbox.available) {
    return `approvals/inbox: not available in this build (missing: ${[...approvals.missing, ...inbox.missing].join(', ')})`;
  }
  const line = (name: string, track: TrackAvailability): string =>
    track.available ? `${name}: tracked` : `${name}: not available in this build (missing: ${track.missing.join(', ')})`;
  return `${line('approvals', approvals)}; ${line('inbox', inbox)}`;
}
