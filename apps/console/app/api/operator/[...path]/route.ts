/**
 * The browser's only way to the operator API: `/api/operator/<route>` → `${AHP_GATEWAY_URL}/v1/operator/<route>`
 * with the session's token as `Authorization: Bearer`. Status, JSON error bodies and the signal
 * export's download headers pass through unchanged; only routes of the operator API are
 * forwarded (see proxy-paths.ts).
 */
import type { NextRequest } from 'next/server';
import { consoleEnv } from '@/lib/server/console-env';
import { gatewayFetch } from '@/lib/server/gateway-fetch';
import { operatorApiPath } from '@/lib/server/proxy-paths';
import { csrfRefusal, sessionToken } from '@/lib/server/request-guard';
import { errorResponse, gatewayUnavailable } from '@/lib/server/responses';

export const dynamic = 'force-dynamic';

/** Response headers worth passing to the browser; everything else is the gateway's business. */
const PASSED_HEADERS = ['content-type', 'content-disposition', 'x-ahp-truncated', 'www-authenticate', 'retry-after'];

/** Largest body forwarded to the gateway (its own limit is 100 kB). */
const MAX_BODY_CHARS = 128 * 1024;

async function forward(request: NextRequest, context: RouteContext<'/api/operator/[...path]'>): Promise<Response> {
  const refused = csrfRefusal(request);
  if (refused) return refused;
  const session = sessionToken(request);
  if ('refusal' in session) return session.refusal;
  const { path } = await context.params;
  const method = request.method === 'POST' || request.method === 'DELETE' ? request.method : 'GET';
  const target = operatorApiPath(method, path);
  if (target === null) return errorResponse(404, 'E_NOT_FOUND', `no operator API route ${method} /${path.join('/')}`);

  let body: string | undefined;
  if (method === 'POST') {
    body = await request.text();
    if (body.length > MAX_BODY_CHARS) return errorResponse(413, 'E_FRAME_TOO_LARGE', 'request body too large');
  }
  let upstream: Response;
  try {
    upstream = await gatewayFetch(`${target}${request.nextUrl.search}`, {
      method,
      token: session.token,
      accept: request.headers.get('accept') ?? 'application/json',
      signal: request.signal,
      ...(body === undefined ? {} : { body }),
    });
  } catch (error) {
    return gatewayUnavailable(consoleEnv().gatewayUrl, error);
  }
  const headers = new Headers({ 'cache-control': 'no-store' });
  for (const name of PASSED_HEADERS) {
    const value = upstream.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(upstream.body, { status: upstream.status, headers });
}

export const GET = forward;
export const POST = forward;
export const DELETE = forward;
