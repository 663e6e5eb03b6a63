/**
 * Decision links: the signed, single-use, short-lived tokens that notifications carry so an
 * operator can decide a request from a phone in one tap (docs/notifications.md "Decision links").
 *
 * - A token is `v1.<claims>.<mac>`: the claims (DecisionLinkClaimsSchema: request, decision,
 *   channel, tier, operator or role, expiry, jti) as base64url JSON, and the HMAC-SHA256 of
 *   `v1.<claims>` with the link secret. Only this server can mint one; changing a byte of it
 *   breaks the MAC.
 * - The secret comes from the deployment (`AHP_LINK_SECRET` on every gateway and worker) or,
 *   without it, from Redis: the first process to start writes 32 random bytes with SET NX and
 *   every other reads the same value, so gateways verify what workers sign.
 * - Single use is enforced in Redis: redeeming SETs `link-used:{jti}` with NX and a TTL up to the
 *   link's expiry. The first redeem wins; every later one (another tap, another gateway, a
 *   replay of the URL) finds the key and is refused.
 * - Reading a link (inspect) does not use it: mail scanners and chat unfurlers open links, and
 *   opening one must never decide or burn it. Only the signed-in operator's tap redeems.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DecisionLinkClaimsSchema, type DecisionLinkClaims, type LinkRefusal } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import { describeIssues } from './validate.js';
import type { StoreKeys } from './keys.js';
import type { RedisClient } from './redis-client.js';

/** Bytes of a secret generated at first start. */
const GENERATED_SECRET_BYTES = 32;
/** A configured secret shorter than this is refused: a guessable key makes every link forgeable. */
export const MIN_LINK_SECRET_CHARS = 32;

/**
 * The link secret: `configured` when given (checked for length), else the one in Redis, created
 * now with SET NX when no process created it before.
 */
export async function loadDecisionLinkSecret(redis: RedisClient, keys: StoreKeys, configured?: string): Promise<string> {
  if (configured !== undefined) {
    if (configured.length < MIN_LINK_SECRET_CHARS) throw new StoreInputError(`the decision link secret must have at least ${MIN_LINK_SECRET_CHARS} characters`);
    return configured;
  }
  const fresh = randomBytes(GENERATED_SECRET_BYTES).toString('base64url');
  // One command (SET NX GET): the secret another process stored first, or ours.
  const stored = (await redis.set(keys.decisionLinkSecret, fresh, { condition: 'NX', GET: true })) ?? fresh;
  if (stored.length < MIN_LINK_SECRET_CHARS) throw new StoreInputError(`the decision link secret in ${keys.decisionLinkSecret} is missing or too short`);
  return stored;
}

function mac(secret: string, signed: string): string {
  return createHmac('sha256', secret).update(signed, 'utf8').digest('base64url');
}

/** A fresh link id (the single-use key). */
export function newLinkId(): string {
  return randomBytes(18).toString('base64url');
}

/** Mints a token for `claims`. @throws StoreInputError for claims that do not parse. */
export function signDecisionLink(secret: string, claims: DecisionLinkClaims): string {
  const checked = DecisionLinkClaimsSchema.safeParse(claims);
  if (!checked.success) throw new StoreInputError(`invalid decision link claims: ${describeIssues(checked.error.issues)}`);
  const signed = `v1.${Buffer.from(JSON.stringify(checked.data), 'utf8').toString('base64url')}`;
  return `${signed}.${mac(secret, signed)}`;
}

export type LinkCheck = { ok: true; claims: DecisionLinkClaims } | { ok: false; refusal: Extract<LinkRefusal, 'invalid' | 'expired'> };

/**
 * Checks a token's MAC (constant time), then its claims, then its expiry at `nowMs`. Anything not
 * understood is `invalid` (fail closed); claims are only trusted after the MAC matched.
 */
export function verifyDecisionLink(secret: string, token: string, nowMs: number): LinkCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1') return { ok: false, refusal: 'invalid' };
  const expected = Buffer.from(mac(secret, `${parts[0]}.${parts[1]}`), 'utf8');
  const given = Buffer.from(parts[2] ?? '', 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, refusal: 'invalid' };
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8'));
  } catch {
    return { ok: false, refusal: 'invalid' };
  }
  const claims = DecisionLinkClaimsSchema.safeParse(json);
  if (!claims.success) return { ok: false, refusal: 'invalid' };
  if (claims.data.exp * 1000 <= nowMs) return { ok: false, refusal: 'expired' };
  return { ok: true, claims: claims.data };
}

/** Who redeemed a link. */
export interface LinkUse {
  readonly operator: string;
  readonly at: string;
}

/**
 * Single use: records that `operator` redeems the link now. True for the first redeem of this
 * `jti`; false when it was redeemed before (by anyone). The record lives until the link would
 * have expired (at least a second), after which the expiry refuses it anyway.
 */
export async function claimDecisionLink(redis: RedisClient, keys: StoreKeys, claims: DecisionLinkClaims, operator: string, nowMs: number): Promise<boolean> {
  const ttlMs = Math.max(1_000, claims.exp * 1000 - nowMs);
  const use: LinkUse = { operator, at: new Date(nowMs).toISOString() };
  const set = await redis.set(keys.decisionLinkUsed(claims.jti), JSON.stringify(use), { condition: 'NX', expiration: { type: 'PX', value: ttlMs } });
  return set === 'OK';
}

/** Who redeemed a link, or null when nobody did (inspect says so before the operator taps; a refusal names who used it). */
export async function decisionLinkUse(redis: RedisClient, keys: StoreKeys, jti: string): Promise<LinkUse | null> {
  const raw = await redis.get(keys.decisionLinkUsed(jti));
  if (raw === null) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<LinkUse>;
    if (typeof parsed.operator === 'string' && typeof parsed.at === 'string') return { operator: parsed.operator, at: parsed.at };
  } catch {
    // Unreadable: it was still used (fail closed), by someone this cannot name.
  }
  return { operator: 'unknown', at: 'unknown' };
}
