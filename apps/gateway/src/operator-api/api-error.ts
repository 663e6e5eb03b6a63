/**
 * Errors of the operator API: an {@link AhpError} (the same typed codes agents get) with the HTTP
 * status that fits its code. Every failed call answers `{ "error": AhpError }`.
 */
import { issueDetails, makeError, type AhpError, type ErrorCode } from '@ahp/protocol';
import { isStoreUnavailable } from '@ahp/store';
import type { ZodError } from 'zod';

/** The HTTP status of each error code the operator API can answer with. */
export function httpStatusFor(code: ErrorCode): number {
  switch (code) {
    case 'E_BAD_FRAME':
    case 'E_INVALID_FRAME':
    case 'E_UNKNOWN_TYPE':
      return 400;
    case 'E_FRAME_TOO_LARGE':
      return 413;
    case 'E_UNAUTHORIZED':
      return 401;
    case 'E_FORBIDDEN':
      return 403;
    case 'E_NOT_FOUND':
      return 404;
    case 'E_CONFLICT':
    case 'E_TYPE_MISMATCH':
      return 409;
    case 'E_RATE_LIMITED':
      return 429;
    case 'E_UNAVAILABLE':
    case 'E_SHUTTING_DOWN':
      return 503;
    default:
      return 500;
  }
}

/** Thrown by operator services and guards; the exception filter turns it into the response. */
export class OperatorApiError extends Error {
  readonly status: number;

  constructor(readonly error: AhpError) {
    super(error.message);
    this.name = 'OperatorApiError';
    this.status = httpStatusFor(error.code);
  }
}

/** How soon a caller may retry after the store was unavailable; the WebSocket side hints the same. */
export const STORE_RETRY_AFTER_MS = 1000;

/** The typed error for a call that failed because Redis is unreachable or not serving yet: retryable. */
export function storeUnavailableError(): AhpError {
  return makeError('E_UNAVAILABLE', 'the store (Redis) is unavailable; retry shortly', undefined, { retryAfterMs: STORE_RETRY_AFTER_MS });
}

/**
 * The typed error a failed operator call answers with, when it has one: an {@link OperatorApiError}
 * as thrown, `E_UNAVAILABLE` (503) when the store is unavailable (`isStoreUnavailable` of
 * `@ahp/store` decides, for every caller). Undefined for anything else — an unexpected failure,
 * answered 500 `E_INTERNAL`.
 */
export function typedOperatorError(error: unknown): OperatorApiError | undefined {
  if (error instanceof OperatorApiError) return error;
  if (isStoreUnavailable(error)) return new OperatorApiError(storeUnavailableError());
  return undefined;
}

/** An `E_INVALID_FRAME` (400) listing where `what` failed its schema, like the WebSocket side does. */
export function invalidInput(what: string, error: ZodError): OperatorApiError {
  const details = issueDetails(error.issues);
  const first = details.issues[0];
  const where = first === undefined ? '' : `: ${first.path === '' ? '' : `${first.path}: `}${first.message}`;
  return new OperatorApiError(makeError('E_INVALID_FRAME', `invalid ${what}${where}`, details));
}

/** Parses `value` with `schema`, or throws a 400 naming what was invalid. */
export function parseInput<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: ZodError } }, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(what, result.error);
  return result.data;
}
