/**
 * Talking to a gateway over HTTP: its URL (`--gateway` or AHP_GATEWAY_URL), a bearer token, a
 * deadline, and the typed `{ "error": AhpError }` bodies of failed calls.
 */
import { OperatorErrorBodySchema } from '@ahp/protocol';
import { CliError, EXIT, usageError, wholeNumber, type CliIo } from './cli-support.js';

/** Options of every command that calls a gateway. */
export const GATEWAY_OPTIONS = {
  gateway: { type: 'string' },
  timeout: { type: 'string' },
} as const;

/** Parsed {@link GATEWAY_OPTIONS}. */
export interface GatewayValues {
  gateway?: string | undefined;
  timeout?: string | undefined;
}

/** The gateway's base URL without a trailing slash, from `--gateway` or AHP_GATEWAY_URL. */
export function gatewayUrl(values: GatewayValues, io: CliIo): string {
  const raw = (values.gateway ?? io.env['AHP_GATEWAY_URL'] ?? '').trim();
  if (raw === '') throw usageError('no gateway to talk to: pass --gateway http://host:port or set AHP_GATEWAY_URL');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--gateway / AHP_GATEWAY_URL is not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError('--gateway / AHP_GATEWAY_URL must be an http:// or https:// URL');
  return url.toString().replace(/\/+$/, '');
}

/** A token from the environment variable `name`; a usage error naming it when unset. */
export function tokenFrom(io: CliIo, name: string): string {
  const token = io.env[name]?.trim() ?? '';
  if (token === '') throw usageError(`no token: set ${name}`);
  return token;
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
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  defaultTimeoutMs = 10_000,
): Promise<unknown> {
  const base = gatewayUrl(values, io);
  const timeoutMs = values.timeout === undefined ? defaultTimeoutMs : wholeNumber('--timeout', values.timeout, 1);
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      signal: AbortSignal.timeout(timeoutMs),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new CliError(EXIT.redis, `cannot reach the gateway at ${base} within ${timeoutMs} ms: ${cause}`);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    throw new CliError(EXIT.invalid, `the gateway answered ${response.status} without JSON`);
  }
  if (!response.ok) {
    const parsed = OperatorErrorBodySchema.safeParse(json);
    const detail = parsed.success ? `${parsed.data.error.code}: ${parsed.data.error.message}` : `HTTP ${response.status}`;
    throw new CliError(EXIT.invalid, `the gateway refused the call (${detail})`);
  }
  return json;
}
