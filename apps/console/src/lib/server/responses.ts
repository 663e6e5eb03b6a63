/**
 * Error answers of the console's route handlers, in the operator API's own shape
 * (`{ "error": AhpError }`), so the browser handles the console's refusals and the gateway's
 * exactly alike.
 */
import 'server-only';
import { makeError, type ErrorCode, type JsonObject } from '@ahp/protocol';

/** A JSON error response with `status` and a typed error. */
export function errorResponse(status: number, code: ErrorCode, message: string, details?: JsonObject): Response {
  return Response.json({ error: makeError(code, message, details) }, { status, headers: { 'cache-control': 'no-store' } });
}

/** The gateway did not answer (down, restarting, unreachable). */
export function gatewayUnavailable(gatewayUrl: string, error: unknown): Response {
  const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
  return errorResponse(502, 'E_UNAVAILABLE', `the gateway at ${gatewayUrl} did not answer (${cause})`, { gateway: gatewayUrl });
}
