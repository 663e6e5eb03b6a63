/** Signing in and out: the console keeps the token in an httpOnly cookie (see app/api/session). */
import { OperatorMeResponseSchema, type OperatorIdentity } from '@ahp/protocol';
import { callJson } from './client';

/** Checks `token` with the gateway and starts the session; rejects with `E_UNAUTHORIZED` for a bad token. */
export async function signIn(token: string): Promise<OperatorIdentity> {
  const { operator } = await callJson('/api/session', OperatorMeResponseSchema, { method: 'POST', body: { token } });
  return operator;
}

const NothingSchema = { safeParse: (value: unknown) => ({ success: true as const, data: value }) };

/** Ends the session (the cookie is cleared). */
export async function signOut(): Promise<void> {
  await callJson('/api/session', NothingSchema, { method: 'DELETE' });
}
