/**
 * Errors of the store, each with a stable `code` to branch on (the message is for people).
 */
import type { ProtocolState } from '@ahp/protocol';

/** Codes of {@link StoreError}. */
export type StoreErrorCode = 'E_STORE_DATA' | 'E_STORE_INPUT' | 'E_HOOK_NOT_FOUND' | 'E_REQUEST_FORBIDDEN' | 'E_INBOX_FULL' | 'E_TOO_MANY_REQUESTS';

/** One schema problem of a value read back from Redis: where in the value, and what. */
export interface StoreDataIssue {
  path: string;
  message: string;
}

/** Base class of every error this library throws on purpose. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A value read back from Redis does not parse with its schema: a corrupt or foreign entry, or one
 * written by an incompatible version. Carries the key so an operator can inspect or delete it;
 * nothing was changed because of it.
 */
export class StoreDataError extends StoreError {
  readonly key: string;
  /** Which part of the value failed (a hash field, `json`, `reply`…). */
  readonly field: string | undefined;
  readonly issues: readonly StoreDataIssue[];

  constructor(key: string, message: string, details: { field?: string; issues?: readonly StoreDataIssue[]; cause?: unknown } = {}) {
    super('E_STORE_DATA', `${key}${details.field === undefined ? '' : ` (${details.field})`}: ${message}`, { cause: details.cause });
    this.key = key;
    this.field = details.field;
    this.issues = details.issues ?? [];
  }
}

/** The caller passed something the store refuses to write (an id that cannot be part of a key, a decision for another hook). */
export class StoreInputError extends StoreError {
  constructor(message: string, options?: ErrorOptions) {
    super('E_STORE_INPUT', message, options);
  }
}

/**
 * `decide` found no correlation for the hook: it was never opened, or it expired (a pending hook
 * lives until its deadline plus the decision TTL). Nothing was stored and nothing was routed; a
 * worker drops the job.
 */
export class HookNotFoundError extends StoreError {
  readonly hookId: string;

  constructor(hookId: string) {
    super('E_HOOK_NOT_FOUND', `hook ${hookId} has no correlation (never opened, or expired)`);
    this.hookId = hookId;
  }
}

/**
 * `RequestStore.cancel` by someone other than the request's sender: only the sender may withdraw
 * a request (the protocol's `cancelRequest` says `forbidden`). Nothing changed; `state` is the
 * request as it stands. A gateway answers it as a permission error (E_FORBIDDEN, HTTP 403).
 */
export class RequestForbiddenError extends StoreError {
  readonly requestId: string;
  readonly actorId: string;
  readonly state: ProtocolState;

  constructor(state: ProtocolState, actorId: string) {
    super('E_REQUEST_FORBIDDEN', `${actorId} may not cancel request ${state.request_id}: only its sender ${state.sender} may`);
    this.requestId = state.request_id;
    this.actorId = actorId;
    this.state = state;
  }
}

/**
 * `InboxStore.send` refused a message because the recipient's inbox holds its most messages or
 * bytes (inbox-send): nothing was stored, the inbox is untouched. A gateway answers it as
 * `E_RATE_LIMITED` to the sender; the recipient's inbox empties as it acknowledges.
 */
export class InboxFullError extends StoreError {
  readonly agentId: string;
  readonly limit: 'messages' | 'bytes';
  readonly max: number;

  constructor(agentId: string, limit: 'messages' | 'bytes', max: number) {
    super('E_INBOX_FULL', `the inbox of ${agentId} is full (at most ${max} ${limit === 'messages' ? 'messages' : 'bytes of messages'}); retry after it has read some`);
    this.agentId = agentId;
    this.limit = limit;
    this.max = max;
  }
}

/**
 * `RequestStore.create` refused a request because its sender has its most pending requests open:
 * nothing was stored. A gateway answers it as `E_RATE_LIMITED`.
 */
export class TooManyRequestsError extends StoreError {
  readonly agentId: string;
  readonly max: number;

  constructor(agentId: string, max: number) {
    super('E_TOO_MANY_REQUESTS', `${agentId} has ${max} pending requests, the most allowed; wait for one to be decided, or cancel one`);
    this.agentId = agentId;
    this.max = max;
  }
}
