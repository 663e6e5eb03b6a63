/**
 * What the client reports for observation ({@link AhpClient.on}): state changes, sessions,
 * goaways, request updates and tool calls waiting for a person.
 */
import type { ProtocolState } from '@ahp/protocol/wire';
import type { SessionInfo, StateChange } from './connection.js';

/** A `pre-tool-use` hook waits for a person's decision on a tool approval request. */
export interface AwaitingApprovalInfo {
  /** The hook whose decision said to wait (the first one, or a re-sent one). */
  readonly hookId: string;
  readonly requestId: string;
  /** ISO 8601: the request expires undecided at this time. */
  readonly deadline: string;
  /** Why approval is needed (the rule's message), for a "waiting for approval" display. */
  readonly reason: string;
}

/** The payload of the `goaway` event. */
export interface GoawayInfo {
  readonly reason: string;
  /** What the gateway asked for; the client adds jitter and moves to the next URL. */
  readonly reconnectAfterMs: number;
  /** The URL being left. */
  readonly url: string | undefined;
}

/**
 * Events of {@link AhpClient.on}, for observation. Messages and requests are consumed through
 * `idle()`, `onRequest()` and the promises of `submitPlan()` / `requestShutdown()`, not here.
 */
export interface ClientEvents {
  /** Every state transition; `closed` carries the reason. */
  state: StateChange;
  /** Every `welcome`: the first one, and each reconnect (`resumed` says whether the session survived). */
  session: SessionInfo;
  /** The gateway announced it is closing this connection; the client moves on by itself. */
  goaway: GoawayInfo;
  /** A request this agent sent or must decide changed state (also delivered again after a reconnect). */
  request_update: ProtocolState;
  /** A `pre-tool-use` hook waits for a person's approval (see `HookOptions.waitForApproval`). */
  awaiting_approval: AwaitingApprovalInfo;
}
