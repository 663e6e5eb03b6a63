/**
 * The console's CSRF rule for every route handler that changes something (any method but GET and
 * HEAD). The session cookie is `SameSite=Strict`, which already keeps cross-site requests from
 * carrying it; this check is the second lock:
 * - the request must carry `x-ahp-csrf: 1`, a header a cross-site HTML form cannot set and a
 *   cross-site `fetch` cannot send without a CORS preflight the console never answers;
 * - when the browser says where the request comes from (`Origin`), it must be the console itself.
 */
import 'server-only';

/** The header the console's own client sends on every mutating call. */
export const CSRF_HEADER = 'x-ahp-csrf';

export interface CsrfInput {
  method: string;
  /** The request's `Origin` header, if any. */
  origin: string | null;
  /** The value of {@link CSRF_HEADER}, if any. */
  csrfHeader: string | null;
  /** The console's own origin, e.g. `http://localhost:3000`. */
  ownOrigin: string;
}

export type CsrfVerdict = { ok: true } | { ok: false; reason: string };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request may go on; pure, so every route handler applies the very same rule. */
export function checkCsrf(input: CsrfInput): CsrfVerdict {
  if (SAFE_METHODS.has(input.method.toUpperCase())) return { ok: true };
  if (input.csrfHeader !== '1') return { ok: false, reason: `missing ${CSRF_HEADER} header` };
  if (input.origin !== null && input.origin !== input.ownOrigin) {
    return { ok: false, reason: `origin ${input.origin} is not this console (${input.ownOrigin})` };
  }
  return { ok: true };
}

/**
 * The console's own origin as the browser addressed it: the `Host` header with the scheme a
 * reverse proxy reports (`x-forwarded-proto`), else the scheme of the request URL.
 */
export function ownOrigin(requestUrl: string, host: string | null, forwardedProto: string | null): string {
  const url = new URL(requestUrl);
  const scheme = forwardedProto?.split(',')[0]?.trim() || url.protocol.replace(/:$/, '');
  return `${scheme}://${host ?? url.host}`;
}
