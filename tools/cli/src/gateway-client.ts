/**
 * Talking to a gateway over HTTP with the typed `{ "error": AhpError }` bodies of failed calls
 * (the transport itself is gateway-http.ts).
 */
import { OperatorErrorBodySchema } from '@ahp/protocol';
import { CliError, EXIT, type CliIo } from './cli-errors.js';
import { requestGateway, type GatewayValues } from './gateway-http.js';

export { gatewayUrl, tokenFrom, type GatewayValues } from './gateway-http.js';

/** The message of a refusal: the typed error's code and message, or the HTTP status. */
export function refusalDetail(status: number, json: unknown): string {
  const parsed = OperatorErrorBodySchema.safeParse(json);
  return parsed.success ? `${parsed.data.error.code}: ${parsed.data.error.message}` : `HTTP ${status}`;
}

/**
 * Calls the gateway and returns the parsed JSON of a 2xx answer. Exit codes of the thrown
 * {@link CliError}: 3 when the gateway cannot be reached in time, 1 when it refuses the call
 * (the message carries the typed error code and message).
 */
export async function callGateway(
  io: CliIo,
  values: GatewayValues,
  token: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  defaultTimeoutMs = 10_000,
): Promise<unknown> {
  const answer = await requestGateway(io, values, token, method, path, body, defaultTimeoutMs);
  if (!answer.ok) throw new CliError(EXIT.invalid, `the gateway refused the call (${refusalDetail(answer.status, answer.json)})`);
  return answer.json;
}
