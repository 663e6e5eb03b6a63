/**
 * Who is signed in, for server components: the token from the session cookie, checked with the
 * gateway's `GET /v1/operator/me` on every page load (roles can change; a revoked token must stop
 * working at once).
 */
import 'server-only';
import { cookies } from 'next/headers';
import { OperatorMeResponseSchema, type OperatorIdentity } from '@ahp/protocol';
import { consoleEnv } from './console-env';
import { gatewayFetch } from './gateway-fetch';
import { SESSION_COOKIE } from './session-cookie';

export type OperatorSession =
  | { kind: 'signed-in'; operator: OperatorIdentity }
  /** No cookie, or the gateway refused the token (unknown, revoked). */
  | { kind: 'signed-out' }
  /** The gateway could not say (down, or answered nonsense): the console shows that and retries. */
  | { kind: 'unknown'; reason: string };

/** The session of the current request. */
export async function operatorSession(): Promise<OperatorSession> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return { kind: 'signed-out' };
  let response: Response;
  try {
    response = await gatewayFetch('/v1/operator/me', { token, signal: AbortSignal.timeout(5000) });
  } catch {
    return { kind: 'unknown', reason: `the gateway at ${consoleEnv().gatewayUrl} did not answer` };
  }
  if (response.status === 401) return { kind: 'signed-out' };
  if (!response.ok) return { kind: 'unknown', reason: `the gateway answered ${response.status} to "who am I"` };
  const parsed = OperatorMeResponseSchema.safeParse(await response.json().catch(() => null));
  return parsed.success ? { kind: 'signed-in', operator: parsed.data.operator } : { kind: 'unknown', reason: 'the gateway answered "who am I" with an unexpected body' };
}
