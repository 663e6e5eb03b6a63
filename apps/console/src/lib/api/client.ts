/**
 * The browser side of the console's API: every call goes to the console's own route handlers
 * (`/api/operator/…`, `/api/session`), which add the operator's token. Responses are parsed with
 * the protocol's schemas; failures become {@link ApiError}s carrying the typed `AhpError`.
 */
import { OperatorErrorBodySchema, describeIssues, makeError, type AhpError } from '@ahp/protocol';

/** A failed call: the HTTP status and the operator API's typed error. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly error: AhpError,
  ) {
    super(error.message);
  }
}

/**
 * What the console needs of a protocol schema: zod's `safeParse`. Declared here so the console
 * depends on `@ahp/protocol` alone, not on zod directly.
 */
export interface ResponseSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/** The header the console's route handlers require on every mutating call (see csrf.ts). */
const CSRF_HEADERS = { 'x-ahp-csrf': '1' } as const;

/** Called when the session is gone (401): back to the sign-in page, keeping where we were. */
function signedOut(): void {
  if (typeof window === 'undefined' || window.location.pathname === '/sign-in') return;
  const back = `${window.location.pathname}${window.location.search}`;
  window.location.assign(`/sign-in?expired=1&next=${encodeURIComponent(back)}`);
}

/** Turns a non-2xx response into an {@link ApiError}. */
async function failure(response: Response): Promise<ApiError> {
  const json: unknown = await response.json().catch(() => undefined);
  const parsed = OperatorErrorBodySchema.safeParse(json);
  if (parsed.success) return new ApiError(response.status, parsed.data.error);
  return new ApiError(response.status, makeError(response.status >= 500 ? 'E_UNAVAILABLE' : 'E_INTERNAL', `the console answered ${response.status}`));
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
}

/** Calls a console route and parses a successful JSON answer with `schema`. */
export async function callJson<T>(url: string, schema: ResponseSchema<T>, options: CallOptions = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(options.method && options.method !== 'GET' ? CSRF_HEADERS : {}),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      cache: 'no-store',
      credentials: 'same-origin',
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, makeError('E_UNAVAILABLE', 'the console server did not answer; check your connection'));
  }
  if (!response.ok) {
    const error = await failure(response);
    if (response.status === 401) signedOut();
    throw error;
  }
  const json: unknown = response.status === 204 ? null : await response.json();
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError(response.status, makeError('E_INTERNAL', `unexpected answer from ${url}: ${describeIssues(parsed.error.issues, { max: 1 }) || 'schema mismatch'}`));
  }
  return parsed.data;
}

/** `/api/operator/<path>?<query>` (the proxy to the gateway's operator API). */
export function operatorUrl(path: string, query?: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') search.set(key, String(value));
  const qs = search.toString();
  return `/api/operator/${path}${qs ? `?${qs}` : ''}`;
}

/** Whether `error` is the API's refusal with `code`. */
export function isApiError(error: unknown, code?: AhpError['code']): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.error.code === code);
}
