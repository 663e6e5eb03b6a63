/**
 * The one place that decides whether an error means "Redis is not there right now" — the store is
 * unavailable and the same call may succeed shortly — as opposed to a bug or bad data. Gateways
 * answer the former with the retryable `E_UNAVAILABLE` (HTTP 503 with `Retry-After` on the
 * operator API), the latter with `E_INTERNAL`.
 */
import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from 'redis';

/** node-redis's errors for a connection that is gone, not up yet, or too slow to answer. */
const CONNECTION_ERRORS: readonly (abstract new (...args: never[]) => Error)[] = [
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
];

/** Socket errors (`error.code`) of a Redis that cannot be reached. */
const NETWORK_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Replies of a Redis that is up but cannot serve yet: loading its AOF, a script running too long,
 * a replica promoted or a failover under way, a cluster slot moving.
 */
const TRANSIENT_REPLY = /^(?:LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY)\b/;

/**
 * Whether `error` means the store is unavailable for now (see the module comment). Looks through
 * `cause` chains and `AggregateError`s (a failed connect to several addresses) a few levels deep.
 * A `StoreDataError` (a corrupt value), an `ErrorReply` for a bad command, or any other error is
 * not: retrying those would not help.
 */
export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  if (CONNECTION_ERRORS.some((type) => error instanceof type)) return true;
  if (error instanceof ErrorReply) return TRANSIENT_REPLY.test(error.message);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isStoreUnavailable(inner, depth + 1))) return true;
  return error.cause !== undefined && isStoreUnavailable(error.cause, depth + 1);
}
