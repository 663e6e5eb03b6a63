/**
 * The one error type the SDK rejects with. Callers branch on `code` — a protocol code the gateway
 * sent (or that the SDK detected itself without a round trip), or one of the client codes below —
 * never on the message, which is for people and may change.
 */
import { CLOSE_CODES, ERROR_CODES, closeCodeName, isErrorCode } from '@ahp/protocol/wire';
import type { AhpError, ErrorCode, JsonObject } from '@ahp/protocol/wire';

/**
 * Codes that only exist on the client side: situations no gateway can report, because they are
 * about the connection itself or about the client's own state. Each entry states whether sending
 * the same request again may succeed.
 */
export const CLIENT_ERROR_CODES = {
  E_CLOSED: {
    retryable: false,
    description: '`close()` was called: pending requests are rejected and new ones are refused.',
  },
  E_DISCONNECTED: {
    retryable: false,
    description:
      'The connection ended for good without `close()`: the gateway closed it with a code that forbids reconnecting (`closeCode` says which), or no transport could be created.',
  },
  E_PROTOCOL: {
    retryable: false,
    description: 'The gateway sent a frame this client cannot use (unparseable, or a reply of the wrong type for the request).',
  },
  E_DUPLICATE_ID: {
    retryable: false,
    description: 'A request with this id is already pending on this client (e.g. the same `hookId` twice at once).',
  },
} as const satisfies Record<string, { retryable: boolean; description: string }>;

/** A client-only error code, see {@link CLIENT_ERROR_CODES}. */
export type ClientErrorCode = keyof typeof CLIENT_ERROR_CODES;

/** Every code an {@link AhpClientError} can carry: a protocol {@link ErrorCode} or a {@link ClientErrorCode}. */
export type AhpClientErrorCode = ErrorCode | ClientErrorCode;

/** Optional parts of an {@link AhpClientError}. */
export interface AhpClientErrorOptions {
  /** Machine-readable context, e.g. the allowed actions or the close code. */
  details?: JsonObject;
  /** Overrides the table's `retryable`; only the gateway's own error frames need this. */
  retryable?: boolean;
  /** Wait at least this long before retrying (from the gateway's `retry_after_ms`). */
  retryAfterMs?: number;
  /** The WebSocket close code that ended the connection, when that is the cause. */
  closeCode?: number;
  /** The underlying error, for logs. */
  cause?: unknown;
}

/**
 * A typed failure of an SDK call. `retryable` answers "may the same call, unchanged, succeed
 * later?" — for protocol codes it is the gateway's value (which comes from `ERROR_CODES`), for
 * client codes the value in {@link CLIENT_ERROR_CODES}.
 */
export class AhpClientError extends Error {
  override readonly name = 'AhpClientError';
  readonly code: AhpClientErrorCode;
  readonly retryable: boolean;
  readonly details: JsonObject | undefined;
  readonly retryAfterMs: number | undefined;
  readonly closeCode: number | undefined;

  constructor(code: AhpClientErrorCode, message: string, options: AhpClientErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? retryableByDefault(code);
    this.details = options.details;
    this.retryAfterMs = options.retryAfterMs;
    this.closeCode = options.closeCode;
  }

  /** The error of a gateway `error` frame, unchanged in meaning. */
  static fromProtocol(error: AhpError): AhpClientError {
    return new AhpClientError(error.code, error.message, {
      retryable: error.retryable,
      ...(error.details === undefined ? {} : { details: error.details }),
      ...(error.retry_after_ms === undefined ? {} : { retryAfterMs: error.retry_after_ms }),
    });
  }
}

/** Whether `value` is an {@link AhpClientError} (also across duplicated copies of this package). */
export function isAhpClientError(value: unknown): value is AhpClientError {
  return (
    value instanceof AhpClientError ||
    (value instanceof Error && value.name === 'AhpClientError' && typeof (value as { code?: unknown }).code === 'string')
  );
}

function retryableByDefault(code: AhpClientErrorCode): boolean {
  return isErrorCode(code) ? ERROR_CODES[code].retryable : CLIENT_ERROR_CODES[code].retryable;
}

/**
 * The error that ends a client whose connection was closed with a "do not reconnect" code. The
 * codes with a protocol meaning map to that error code, so `E_UNAUTHORIZED` reads the same
 * whether the gateway refused the upgrade (HTTP 401) or revoked the token mid-connection (4401).
 */
export function errorForCloseCode(code: number, reason: string): AhpClientError {
  const name = closeCodeName(code);
  const details: JsonObject = { close_code: code, reason, ...(name === undefined ? {} : { close_name: name }) };
  const text = `the gateway closed the connection with ${code}${name === undefined ? '' : ` (${name})`}${reason === '' ? '' : `: ${reason}`}`;
  switch (code) {
    case CLOSE_CODES.UNAUTHORIZED:
      return new AhpClientError('E_UNAUTHORIZED', text, { details, closeCode: code });
    case CLOSE_CODES.FORBIDDEN:
      return new AhpClientError('E_FORBIDDEN', text, { details, closeCode: code });
    case CLOSE_CODES.UNSUPPORTED_VERSION:
      return new AhpClientError('E_UNSUPPORTED_VERSION', text, { details, closeCode: code });
    default:
      return new AhpClientError('E_DISCONNECTED', text, { details, closeCode: code });
  }
}
