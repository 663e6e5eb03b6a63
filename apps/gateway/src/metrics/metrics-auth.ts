/**
 * The optional bearer token of `GET /metrics` (`AHP_METRICS_TOKEN`). Metrics name agents' triggers
 * and error codes, not secrets, but a deployment that exposes the gateway port publicly should
 * still not publish them; Prometheus sends the token with `authorization.credentials`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether an `Authorization` header value carries `Bearer <expected>`. Compared as SHA-256
 * digests in constant time, so neither the token's length nor its prefix leaks through timing.
 */
export function bearerTokenMatches(header: string | readonly string[] | undefined, expected: string): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== 'string') return false;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(value)?.[1];
  if (token === undefined) return false;
  return timingSafeEqual(digest(token), digest(expected));
}
