/**
 * The console server's configuration, read from the environment once per process.
 *
 * - `AHP_GATEWAY_URL`: base URL of a gateway's HTTP port (the operator API and the live feed).
 *   @defaultValue `http://127.0.0.1:8080`
 * - `AHP_TRACE_URL`: the URL of a trace in the operators' tracing UI, with `{trace_id}` where the
 *   id goes (e.g. `http://jaeger:16686/trace/{trace_id}`); the hook drill-down then links its
 *   trace id there. http(s) only. @defaultValue none: the trace id is shown as text
 * - `PORT`: read by `next start` itself. @defaultValue 3000
 * - `OTEL_*`: the console's own tracing, read by instrumentation.ts (docs/deploy.md "Tracing").
 */
import 'server-only';
import { TraceUrlTemplateSchema } from '@ahp/protocol';

export interface ConsoleEnv {
  /** Without a trailing slash. */
  gatewayUrl: string;
  /** `AHP_TRACE_URL`, checked; absent when unset. */
  traceUrl?: string;
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
  const traceText = env['AHP_TRACE_URL']?.trim();
  if (traceText === undefined || traceText === '') return { gatewayUrl: url.href.replace(/\/+$/, '') };
  const trace = TraceUrlTemplateSchema.safeParse(traceText);
  if (!trace.success) throw new ConsoleEnvError(`AHP_TRACE_URL ${trace.error.issues[0]?.message ?? 'is not valid'} (e.g. http://jaeger:16686/trace/{trace_id}), got "${traceText}"`);
  return { gatewayUrl: url.href.replace(/\/+$/, ''), traceUrl: trace.data };
}

let cached: ConsoleEnv | undefined;

/** The parsed environment of this process (parsed on first use). */
export function consoleEnv(): ConsoleEnv {
  cached ??= parseConsoleEnv(process.env);
  return cached;
}
