/**
 * One HTTP call to a gateway: its URL (`--gateway` or AHP_GATEWAY_URL), a bearer token, a deadline,
 * and a JSON answer. Imports nothing but node's own `fetch`, so the Claude Code command hook
 * (hook-main.ts) can use it without loading the protocol library; gateway-client.ts adds the
 * typed error bodies for the operator commands.
 */
import { CliError, EXIT, usageError, wholeNumber, type CliIo } from './cli-errors.js';

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
export function gatewayUrl(values: GatewayValues, io: Pick<CliIo, 'env'>): string {
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
export function tokenFrom(io: Pick<CliIo, 'env'>, name: string): string {
  const token = io.env[name]?.trim() ?? '';
  if (token === '') throw usageError(`no token: set ${name}`);
  return token;
}

/** A gateway's answer: its status and its body as parsed JSON. */
export interface GatewayAnswer {
  status: number;
  ok: boolean;
  json: unknown;
}

/** Largest answer read from a gateway; a hook output or an operator list is far smaller. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * Calls the gateway and returns its status and JSON body, whatever the status. Throws a
 * {@link CliError}: exit code 3 when the gateway cannot be reached in time, 1 when the answer is not JSON.
 *
 * Uses node:http(s) rather than `fetch`: the first `fetch` of a process loads its HTTP client,
 * which costs a command hook started per tool call 2–3 times what node:http does.
 */
export async function requestGateway(
  io: Pick<CliIo, 'env'>,
  values: GatewayValues,
  token: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  defaultTimeoutMs = 10_000,
  extraHeaders: Readonly<Record<string, string>> = {},
  /** Added to the timeout, `--timeout` or not (a permission prompt's hold). */
  extraTimeoutMs = 0,
): Promise<GatewayAnswer> {
  const base = gatewayUrl(values, io);
  const timeoutMs = (values.timeout === undefined ? defaultTimeoutMs : wholeNumber('--timeout', values.timeout, 1)) + extraTimeoutMs;
  const url = new URL(`${base}${path}`);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const outgoing = request(url, {
      method,
      headers: {
        ...extraHeaders,
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(payload.length) }),
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
    outgoing.once('error', (error: Error) => {
      const cause = error.name === 'AbortError' || error.name === 'TimeoutError' ? 'timed out' : error.message;
      reject(new CliError(EXIT.redis, `cannot reach the gateway at ${base} within ${timeoutMs} ms: ${cause}`));
    });
    outgoing.once('response', (incoming) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) outgoing.destroy(new Error(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      incoming.once('end', () => resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      incoming.once('error', (error: Error) => reject(new CliError(EXIT.redis, `the gateway at ${base} broke off its answer: ${error.message}`)));
    });
    outgoing.end(payload);
  });
  try {
    return { status: answer.status, ok: answer.status >= 200 && answer.status < 300, json: JSON.parse(answer.text) as unknown };
  } catch {
    throw new CliError(EXIT.invalid, `the gateway answered ${answer.status} without JSON`);
  }
}
