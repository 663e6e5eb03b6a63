/**
 * The per-deployment key of the redaction markers in queued hook contexts (docs/security.md,
 * "Secrets in hook contexts"). A secret-named field's value is replaced by
 * `[redacted:<HMAC-SHA-256(key, canonical JSON of the value), first 128 bits>]`: inputs that
 * differ only in a secret still differ once redacted (so do their approval digests and grants),
 * the secret itself is never stored, and without the key a low-entropy value (a tenant name, a
 * short password) cannot be confirmed by hashing guesses.
 *
 * Every gateway must use the same key, or one call's digest would depend on which gateway queued
 * it: `AHP_REDACTION_KEY` on each, or — unset — the one the first gateway stored in Redis (SET
 * NX), which protects the values from people who can read the job data but not the key, i.e. not
 * from a reader of the whole Redis: set the variable in production.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { redactionMarker } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import type { RedisClient } from './redis-client.js';
import { canonicalJson } from './validate.js';

/** The shortest key accepted, in characters. */
export const MIN_REDACTION_KEY_CHARS = 32;

/** The configured key, or the deployment's stored one (created by the first caller). */
export async function loadRedactionKey(redis: RedisClient, keys: StoreKeys, configured?: string): Promise<string> {
  if (configured !== undefined) {
    if (configured.length < MIN_REDACTION_KEY_CHARS) throw new StoreInputError(`the redaction key must have at least ${MIN_REDACTION_KEY_CHARS} characters`);
    return configured;
  }
  const fresh = randomBytes(32).toString('base64url');
  // One command (SET NX GET): the key another process stored first, or ours.
  const stored = (await redis.set(keys.redactionKey, fresh, { condition: 'NX', GET: true })) ?? fresh;
  if (stored.length < MIN_REDACTION_KEY_CHARS) throw new StoreInputError(`the redaction key in ${keys.redactionKey} is too short`);
  return stored;
}

/** The marker of one secret value under `key`: `[redacted:<32 hex>]`. */
export function redactionMarkerFor(key: string, value: unknown): string {
  return redactionMarker(createHmac('sha256', key).update(canonicalJson(value), 'utf8').digest('hex').slice(0, 32));
}
