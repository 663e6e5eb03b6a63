/**
 * The operator's session: the operator token itself, kept in an httpOnly cookie so no script in
 * the page can read it. Only the console's route handlers see it, and they forward it to the
 * gateway as `Authorization: Bearer`.
 */
import 'server-only';

export const SESSION_COOKIE = 'ahp_operator';

/** A session outlives a shift, not a week: sign in again after this long. */
export const SESSION_MAX_AGE_S = 12 * 60 * 60;

/** Longest token the console accepts at sign-in (minted tokens are ~48 characters). */
export const MAX_TOKEN_LENGTH = 1024;

/** Cookie attributes of the session: httpOnly, SameSite=Strict, the whole console, Secure over https. */
export function sessionCookieOptions(secure: boolean) {
  return { httpOnly: true, sameSite: 'strict' as const, path: '/', secure, maxAge: SESSION_MAX_AGE_S };
}

/**
 * The token of a sign-in body `{ "token": "…" }`, trimmed, or `null` when the body is not that.
 * Checked by hand: this body never leaves the console, and the gateway judges the token itself.
 */
export function tokenFromSignInBody(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'token') return null;
  const token = (body as { token: unknown }).token;
  if (typeof token !== 'string') return null;
  const trimmed = token.trim();
  // Printable ASCII only: anything else cannot be a header value, nor a minted token.
  if (trimmed.length === 0 || trimmed.length > MAX_TOKEN_LENGTH || !/^[\x21-\x7e]+$/.test(trimmed)) return null;
  return trimmed;
}

/** Whether the browser reached the console over https (directly or through a TLS proxy). */
export function isHttps(requestUrl: string, forwardedProto: string | null): boolean {
  const proto = forwardedProto?.split(',')[0]?.trim();
  return (proto ?? new URL(requestUrl).protocol.replace(/:$/, '')) === 'https';
}
