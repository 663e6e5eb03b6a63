/**
 * Sign in and sign out. `POST { token }` checks the token with the gateway (`GET /me`) and, when
 * it names an operator, keeps it in the httpOnly session cookie; `DELETE` forgets it.
 */
import { NextResponse, type NextRequest } from 'next/server';
import { OperatorErrorBodySchema, OperatorMeResponseSchema } from '@ahp/protocol';
import { consoleEnv } from '@/lib/server/console-env';
import { gatewayFetch } from '@/lib/server/gateway-fetch';
import { csrfRefusal } from '@/lib/server/request-guard';
import { errorResponse, gatewayUnavailable } from '@/lib/server/responses';
import { SESSION_COOKIE, isHttps, sessionCookieOptions, tokenFromSignInBody } from '@/lib/server/session-cookie';

export const dynamic = 'force-dynamic';

export async function POST(request: NextRequest): Promise<Response> {
  const refused = csrfRefusal(request);
  if (refused) return refused;
  const body: unknown = await request.json().catch(() => undefined);
  const token = tokenFromSignInBody(body);
  if (token === null) return errorResponse(400, 'E_INVALID_FRAME', 'send {"token": "<your operator token>"}');

  let upstream: Response;
  try {
    upstream = await gatewayFetch('/v1/operator/me', { token, signal: AbortSignal.timeout(5000) });
  } catch (error) {
    return gatewayUnavailable(consoleEnv().gatewayUrl, error);
  }
  const json: unknown = await upstream.json().catch(() => null);
  if (!upstream.ok) {
    const parsed = OperatorErrorBodySchema.safeParse(json);
    return parsed.success
      ? Response.json(parsed.data, { status: upstream.status })
      : errorResponse(502, 'E_INTERNAL', `the gateway answered ${upstream.status} without an error body`);
  }
  const me = OperatorMeResponseSchema.safeParse(json);
  if (!me.success) return errorResponse(502, 'E_INTERNAL', 'the gateway answered "who am I" with an unexpected body');

  const response = NextResponse.json(me.data, { headers: { 'cache-control': 'no-store' } });
  response.cookies.set(SESSION_COOKIE, token, sessionCookieOptions(isHttps(request.url, request.headers.get('x-forwarded-proto'))));
  return response;
}

export function DELETE(request: NextRequest): Response {
  const refused = csrfRefusal(request);
  if (refused) return refused;
  const response = new NextResponse(null, { status: 204 });
  response.cookies.set(SESSION_COOKIE, '', { ...sessionCookieOptions(isHttps(request.url, request.headers.get('x-forwarded-proto'))), maxAge: 0 });
  return response;
}
