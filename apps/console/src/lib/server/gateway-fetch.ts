/**
 * Server-side calls to the gateway's operator API with the operator's token. Used by the route
 * handlers (the proxy, the live feed, sign-in) and by server components; never shipped to the
 * browser (it imports `next/headers` through its callers only, and reads the environment).
 */
import 'server-only';
import { consoleEnv } from './console-env';
import { gatewayCallTracer } from './gateway-tracing';

export interface GatewayFetchOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  token: string;
  /** JSON text to send as the body. */
  body?: string;
  signal?: AbortSignal;
  accept?: string;
}

/**
 * Calls `${AHP_GATEWAY_URL}${path}`; rejects only when the gateway cannot be reached. With tracing
 * on, the call is a span whose `traceparent` goes with the request (the gateway continues it).
 */
export function gatewayFetch(path: string, options: GatewayFetchOptions): Promise<Response> {
  const method = options.method ?? 'GET';
  const send = (traceHeaders: Record<string, string>): Promise<Response> => {
    const headers: Record<string, string> = { ...traceHeaders, authorization: `Bearer ${options.token}`, accept: options.accept ?? 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${consoleEnv().gatewayUrl}${path}`, {
      method,
      headers,
      cache: 'no-store',
      redirect: 'error',
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  };
  const traced = gatewayCallTracer();
  return traced === undefined ? send({}) : traced(method, path, send);
}
