/**
 * What every console route handler checks first: the CSRF rule for mutating calls, then the
 * session cookie. Returns the operator token, or the refusal to send back.
 */
import 'server-only';
import type { NextRequest } from 'next/server';
import { CSRF_HEADER, checkCsrf, ownOrigin } from './csrf';
import { errorResponse } from './responses';
import { SESSION_COOKIE } from './session-cookie';

/** Applies the CSRF rule to `request`; a refusal is a 403 `E_FORBIDDEN`. */
export function csrfRefusal(request: NextRequest): Response | null {
  const verdict = checkCsrf({
    method: request.method,
    origin: request.headers.get('origin'),
    csrfHeader: request.headers.get(CSRF_HEADER),
    ownOrigin: ownOrigin(request.url, request.headers.get('host'), request.headers.get('x-forwarded-proto')),
  });
  return verdict.ok ? null : errorResponse(403, 'E_FORBIDDEN', `refused: ${verdict.reason}`);
}

/** The token of the session, or a 401 refusal (no session cookie). */
export function sessionToken(request: NextRequest): { token: string } | { refusal: Response } {
  const token = request.cookies.get(SESSION_COOKIE)?.value;
  if (!token) return { refusal: errorResponse(401, 'E_UNAUTHORIZED', 'not signed in: sign in with your operator token') };
  return { token };
}
