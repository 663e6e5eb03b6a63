/**
 * The console server's configuration, read from the environment once per process.
 *
 * - `AHP_GATEWAY_URL`: base URL of a gateway's HTTP port (the operator API and the live feed).
 *   @defaultValue `http://127.0.0.1:8080`
 * - `PORT`: read by `next start` itself. @defaultValue 3000
 */
import 'server-only';

export interface ConsoleEnv {
  /** Without a trailing slash. */
  gatewayUrl: string;
}

/** The variable is malformed: the message names it. */
export class ConsoleEnvError extends Error {
  override readonly name = 'ConsoleEnvError';
}

/** Parses the variables the console reads; throws {@link ConsoleEnvError} naming a bad one. */
export function parseConsoleEnv(env: Record<string, string | undefined>): ConsoleEnv {
  const raw = env['AHP_GATEWAY_URL']?.trim() || 'http://127.0.0.1:8080';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConsoleEnvError(`AHP_GATEWAY_URL must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConsoleEnvError(`AHP_GATEWAY_URL must be an http(s) URL, got "${raw}"`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConsoleEnvError('AHP_GATEWAY_URL must not have a query or a fragment');
  }
  return { gatewayUrl: url.href.replace(/\/+$/, '') };
}

let cached: ConsoleEnv | undefined;

/** The parsed environment of this process (parsed on first use). */
export function consoleEnv(): ConsoleEnv {
  cached ??= parseConsoleEnv(process.env);
  return cached;
}
