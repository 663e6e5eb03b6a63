/**
 * Typed errors and WebSocket close codes of the AHP wire protocol.
 *
 * Two channels, two purposes:
 * - an {@link AhpError} travels inside an `error` frame and answers ONE request; the connection and
 *   every other request survive it. Clients branch on `code`, never on `message`.
 * - a close code ends the whole connection; its numeric range alone tells the client whether to
 *   reconnect ({@link closeCodeAllowsReconnect}), so a client written before a code was added
 *   still does the right thing.
 *
 * Everything here is defined once and re-used by the gateway, the workers, the SDK and the docs
 * (`docs/errors.md` is checked against these tables by a test).
 */
import { z } from 'zod';
import { JsonObjectSchema, LIMITS, TextSchema } from './primitives.js';
import type { JsonObject } from './primitives.js';

/** What the protocol promises about one error code. */
export interface ErrorCodeInfo {
  /**
   * True when sending the same request again, unchanged, may succeed later (after a wait, a
   * reconnect or a change of state elsewhere). False when the request itself must change first.
   */
  readonly retryable: boolean;
  /** One sentence for people: when the code is used and what the client should do. */
  readonly description: string;
}

/**
 * The error code table: every code the protocol may put in an {@link AhpError}, with its
 * retry semantics. Adding a code is a protocol change (see `PROTOCOL_VERSION`); clients must
 * still treat a code they do not know like `E_INTERNAL`.
 */
export const ERROR_CODES = {
  E_BAD_FRAME: {
    retryable: false,
    description: 'The frame is not valid JSON, or its top level is not a JSON object.',
  },
  E_UNKNOWN_TYPE: {
    retryable: false,
    description: 'The frame has no `type`, or a `type` this protocol version does not define for this direction.',
  },
  E_INVALID_FRAME: {
    retryable: false,
    description: 'The frame failed its schema; `details.issues` lists up to ten problems with their paths.',
  },
  E_INVALID_CONTEXT: {
    retryable: false,
    description:
      "A hook's context does not fit its trigger's context schema (an unknown field, a missing `tool`, a wrong type; free-form data belongs under `context.extra`); `details.issues` lists up to ten problems with their paths. Also the error of a decision whose rule read a context field the hook does not have.",
  },
  E_FRAME_TOO_LARGE: {
    retryable: false,
    description: 'The frame is larger than `limits.max_frame_bytes` announced in `welcome` (UTF-8 bytes).',
  },
  E_UNSUPPORTED_VERSION: {
    retryable: false,
    description: 'The `protocol` number in `hello` is not one this gateway speaks; `details.supported` lists the ones it does.',
  },
  E_HANDSHAKE: {
    retryable: false,
    description: 'A request arrived before `hello` was answered, or `hello` was sent twice on one connection.',
  },
  E_UNAUTHORIZED: {
    retryable: false,
    description: 'The credentials are missing, invalid or expired; obtain a new token before trying again.',
  },
  E_FORBIDDEN: {
    retryable: false,
    description: 'The agent is authenticated but not allowed to do this (wrong target, not the lead, revoked).',
  },
  E_NOT_FOUND: {
    retryable: false,
    description: 'The referenced request, signal, session, agent or message does not exist (or no longer does).',
  },
  E_CONFLICT: {
    retryable: false,
    description: 'The target was already decided differently (e.g. a request approved by someone else); `details` carries the winning state.',
  },
  E_TYPE_MISMATCH: {
    retryable: false,
    description: 'The response type does not fit the request it answers (a shutdown request only accepts a shutdown response).',
  },
  E_INVALID_ACTION: {
    retryable: false,
    description: "The consumption action is not valid for the signal's intensity (e.g. `dismiss` on a block signal).",
  },
  E_TIMEOUT: {
    retryable: true,
    description: 'No answer arrived before the deadline (oracle evaluation, a tool, a pending request).',
  },
  E_STUTTERING: {
    retryable: false,
    description: 'Circuit breaker: the model output repeats itself beyond the threshold; change the prompt or context before retrying.',
  },
  E_MAX_ITER: {
    retryable: false,
    description: 'Circuit breaker: the run exceeded its iteration budget; a person must decide how to continue.',
  },
  E_PLAN_PENDING: {
    retryable: true,
    description: 'The tool call is gated while a plan approval is pending; retry after the approval arrives as a `request_update`.',
  },
  E_PLAN_REQUIRED: {
    retryable: false,
    description:
      'The tool call is gated until a plan of this agent is approved: its last plan was rejected, expired or none was submitted where the team requires one; submit a (revised) plan. `details` names the plan and its status.',
  },
  E_SIGNAL_UNANSWERED: {
    retryable: false,
    description:
      'A block or control signal sent to this agent (in this session or an earlier one) was not answered within its grace; answer each signal in `details.signal_ids` with `signal_response`, then re-send the hook.',
  },
  E_RATE_LIMITED: {
    retryable: true,
    description: 'Too many requests; wait `retry_after_ms` before sending again.',
  },
  E_UNAVAILABLE: {
    retryable: true,
    description: 'A dependency (Redis, the queue, the workers) is unavailable for now; retry with backoff.',
  },
  E_SHUTTING_DOWN: {
    retryable: true,
    description: 'This gateway is draining and accepts no new work; reconnect (another instance will serve) and retry.',
  },
  E_INTERNAL: {
    retryable: true,
    description: 'An unexpected failure on the server; retrying once with backoff is safe because hooks are idempotent by id.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** One of the codes in {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes of {@link ERROR_CODES} in their table order (stable: docs and JSON Schema use it). */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** Accepts exactly the codes in {@link ERROR_CODES}. */
export const ErrorCodeSchema = z.enum(ERROR_CODE_LIST).meta({ id: 'ErrorCode' });

/** Whether a value is one of the known error codes (e.g. before indexing {@link ERROR_CODES}). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/**
 * The error object of an `error` frame (and of any other place that reports a failure, such as
 * a hook decision made by failure policy).
 *
 * - `retryable` repeats the table value so a client needs no table to decide; it is always the
 *   value from {@link ERROR_CODES} when built with {@link makeError}.
 * - `details` is machine-readable context (issues, the conflicting state, supported versions).
 * - `retry_after_ms` is a hint, mostly with `E_RATE_LIMITED`, `E_SHUTTING_DOWN`, `E_UNAVAILABLE`.
 */
export const AhpErrorSchema = z
  .strictObject({
    code: ErrorCodeSchema,
    message: TextSchema.min(1),
    retryable: z.boolean(),
    details: JsonObjectSchema.optional(),
    retry_after_ms: z.number().int().min(0).max(24 * 60 * 60 * 1000).optional(),
  })
  .meta({ id: 'AhpError', description: 'A typed protocol error: branch on `code`, show `message` to people.' });
export type AhpError = z.infer<typeof AhpErrorSchema>;

/** Optional parts of {@link makeError}. */
export interface MakeErrorOptions {
  /** Hint for the client: wait at least this long before retrying. Rounded and clamped to >= 0. */
  retryAfterMs?: number;
}

/**
 * Builds an {@link AhpError} whose `retryable` comes from {@link ERROR_CODES}, so no caller can
 * contradict the table. The message is trimmed to fit `LIMITS.maxText` (and never empty), so the
 * result always passes {@link AhpErrorSchema}; `details` must already be a JSON object.
 */
export function makeError(
  code: ErrorCode,
  message: string,
  details?: JsonObject,
  options: MakeErrorOptions = {},
): AhpError {
  const text = message.length === 0 ? code : message.slice(0, LIMITS.maxText);
  const error: AhpError = { code, message: text, retryable: ERROR_CODES[code].retryable };
  if (details !== undefined) error.details = details;
  if (options.retryAfterMs !== undefined && Number.isFinite(options.retryAfterMs)) {
    error.retry_after_ms = Math.min(24 * 60 * 60 * 1000, Math.max(0, Math.round(options.retryAfterMs)));
  }
  return error;
}

// --- close codes -------------------------------------------------------------------------------

/**
 * The two ranges of application close codes. Their meaning is the contract, not the list of
 * names: a client that meets an unlisted code inside a range follows the range.
 */
export const CLOSE_CODE_RANGES = {
  /** The connection ended for a reason that says nothing bad about the client: reconnect with backoff and resume. */
  reconnect: { min: 4000, max: 4099 },
  /** The client must not reconnect as it is: its credentials, version or behaviour must change first. */
  stop: { min: 4400, max: 4499 },
} as const;

/**
 * Close codes the gateway sends (the name is for code, the number goes on the wire). 4000–4099
 * mean "reconnect", 4400–4499 mean "do not reconnect"; the reason text of a close frame is at most
 * 123 bytes, so details belong in a preceding `goaway` or `error` frame, never in the reason.
 */
export const CLOSE_CODES = {
  /** The gateway is shutting down or draining (after a `goaway` frame): reconnect, another instance serves. */
  GOING_AWAY: 4000,
  /** No pong arrived within the heartbeat window; the connection is presumed dead. */
  HEARTBEAT_TIMEOUT: 4001,
  /** No `hello` arrived within the handshake window after the upgrade. */
  HANDSHAKE_TIMEOUT: 4002,
  /** A newer connection resumed the same session; this one is stale. */
  SESSION_REPLACED: 4003,
  /** The client did not read its frames fast enough and the send buffer overflowed. */
  SLOW_CONSUMER: 4004,
  /** The gateway hit an unexpected failure on this connection. */
  SERVER_ERROR: 4005,
  /** The connection sent frames faster than allowed for too long. */
  CONNECTION_RATE_LIMITED: 4006,
  /** The client broke the protocol repeatedly or fatally (binary frames, a flood of bad frames). */
  PROTOCOL_VIOLATION: 4400,
  /** The token expired or became invalid during the connection. */
  UNAUTHORIZED: 4401,
  /** The agent was revoked or is not allowed to connect. */
  FORBIDDEN: 4403,
  /** The session ended on purpose (the agent's shutdown request was approved); start a new run instead. */
  SESSION_ENDED: 4410,
  /** The client's `hello.protocol` is not supported; upgrade the client. */
  UNSUPPORTED_VERSION: 4426,
} as const;

/** A name in {@link CLOSE_CODES}. */
export type CloseCodeName = keyof typeof CLOSE_CODES;
/** A number in {@link CLOSE_CODES}. */
export type CloseCode = (typeof CLOSE_CODES)[CloseCodeName];

/**
 * Standard WebSocket close codes (RFC 6455, IANA registry) and whether a client should reconnect
 * after each. Deliberate endings and client bugs stop; transport and server trouble reconnect.
 */
export const STANDARD_CLOSE_CODES: Readonly<Record<number, { name: string; reconnect: boolean }>> = {
  1000: { name: 'normal closure', reconnect: false },
  1001: { name: 'going away', reconnect: true },
  1002: { name: 'protocol error', reconnect: false },
  1003: { name: 'unsupported data', reconnect: false },
  1005: { name: 'no status received', reconnect: true },
  1006: { name: 'abnormal closure', reconnect: true },
  1007: { name: 'invalid frame payload data', reconnect: false },
  1008: { name: 'policy violation', reconnect: false },
  1009: { name: 'message too big', reconnect: false },
  1010: { name: 'mandatory extension', reconnect: false },
  1011: { name: 'internal error', reconnect: true },
  1012: { name: 'service restart', reconnect: true },
  1013: { name: 'try again later', reconnect: true },
  1014: { name: 'bad gateway', reconnect: true },
  1015: { name: 'TLS handshake failure', reconnect: false },
};

/**
 * Whether a client should reconnect (with backoff, resuming its session) after the connection
 * closed with `code`.
 *
 * Order of rules: the AHP ranges first (4000–4099 yes, 4400–4499 no), then the standard codes
 * in {@link STANDARD_CLOSE_CODES}; anything else (an unknown private code, a code outside the
 * valid 1000–4999 space) reconnects, because a dropped agent is worse than one extra attempt —
 * the backoff keeps that attempt cheap.
 */
export function closeCodeAllowsReconnect(code: number): boolean {
  if (code >= CLOSE_CODE_RANGES.reconnect.min && code <= CLOSE_CODE_RANGES.reconnect.max) return true;
  if (code >= CLOSE_CODE_RANGES.stop.min && code <= CLOSE_CODE_RANGES.stop.max) return false;
  const standard = STANDARD_CLOSE_CODES[code];
  if (standard !== undefined) return standard.reconnect;
  return true;
}

/** The {@link CLOSE_CODES} name of a number, or undefined when it is not one of ours. */
export function closeCodeName(code: number): CloseCodeName | undefined {
  for (const [name, value] of Object.entries(CLOSE_CODES)) {
    if (value === code) return name as CloseCodeName;
  }
  return undefined;
}
