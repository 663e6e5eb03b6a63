/**
 * Web Push state: the VAPID key pair of the deployment and each operator's push subscriptions.
 *
 * - The key pair (P-256, as RFC 8292 asks) is generated at first start: the first gateway or
 *   worker to need it writes it with SET NX, every other process reads the same one. Browsers
 *   subscribe with its public key, so changing it would orphan every subscription: it is kept.
 * - Subscriptions: one hash per operator, keyed by the SHA-256 of the endpoint (the same browser
 *   subscribing again replaces its entry), at most {@link MAX_PUSH_SUBSCRIPTIONS} per operator
 *   (the oldest leaves). A subscription the push service reports gone (404/410) is removed by
 *   the worker that tried it.
 */
import { createECDH, createHash } from 'node:crypto';
import { PushSubscriptionSchema, StoredPushSubscriptionSchema, type PushSubscriptionData, type StoredPushSubscription } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** Subscriptions kept per operator (phones, laptops, browsers). */
export const MAX_PUSH_SUBSCRIPTIONS = 20;

/** A VAPID key pair, base64url: the uncompressed public point (65 bytes) and the private scalar (32 bytes). */
export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
}

/** Bytes of a P-256 private scalar. */
const P256_SCALAR_BYTES = 32;

// ECDH hands the scalar back without its leading zero bytes (one key in 256 is 31 bytes long), but
// VAPID (RFC 8292, via web-push) wants exactly 32: pad on the left, which keeps the same number.
function padScalar(scalar: Buffer): Buffer {
  return scalar.length >= P256_SCALAR_BYTES ? scalar : Buffer.concat([Buffer.alloc(P256_SCALAR_BYTES - scalar.length), scalar]);
}

function generateVapidKeys(): VapidKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: padScalar(ecdh.getPrivateKey()).toString('base64url') };
}

/**
 * The stored pair, checked, with a short scalar padded: earlier versions stored the 31-byte
 * scalars ECDH sometimes returns, and those keys must keep working (subscriptions depend on them).
 */
function readVapidKeys(value: unknown): VapidKeys | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { publicKey, privateKey } = value as Record<string, unknown>;
  if (typeof publicKey !== 'string' || typeof privateKey !== 'string') return undefined;
  const scalar = Buffer.from(privateKey, 'base64url');
  if (Buffer.from(publicKey, 'base64url').length !== 65 || scalar.length === 0 || scalar.length > P256_SCALAR_BYTES) return undefined;
  return { publicKey, privateKey: padScalar(scalar).toString('base64url') };
}

/** The deployment's VAPID keys, generated now (SET NX) when no process generated them before. */
export async function loadVapidKeys(redis: RedisClient, keys: StoreKeys): Promise<VapidKeys> {
  // One command (SET NX GET, Redis 7.0+): the keys another process stored first, or ours — no read
  // that could miss a write made an instant earlier.
  const fresh = JSON.stringify(generateVapidKeys());
  const raw = (await redis.set(keys.vapidKeys, fresh, { condition: 'NX', GET: true })) ?? fresh;
  const stored = readVapidKeys(parseStoredJson(raw, keys.vapidKeys, 'value'));
  if (!stored) throw new StoreInputError(`the VAPID keys in ${keys.vapidKeys} are missing or malformed`);
  return stored;
}

export interface PushSubscriptionStore {
  /** Adds (or refreshes) a subscription of `operator`; the oldest beyond the cap leave. */
  add(operator: string, subscription: PushSubscriptionData, now: number): Promise<void>;
  /** Removes the subscription with this endpoint; false when there was none. */
  remove(operator: string, endpoint: string): Promise<boolean>;
  /** The operator's subscriptions, oldest first. */
  list(operator: string): Promise<StoredPushSubscription[]>;
}

const field = (endpoint: string) => createHash('sha256').update(endpoint, 'utf8').digest('hex');

export function createPushSubscriptionStore(options: { redis: RedisClient; keys: StoreKeys }): PushSubscriptionStore {
  const { redis, keys } = options;
  const list = async (operator: string): Promise<StoredPushSubscription[]> => {
    const key = keys.pushSubscriptions(operator);
    const all = await redis.hGetAll(key);
    return Object.entries(all)
      .map(([name, raw]) => parseStored(StoredPushSubscriptionSchema, parseStoredJson(raw, key, name), key, name))
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  };
  return {
    async add(operator, subscription, now) {
      const checked = PushSubscriptionSchema.safeParse(subscription);
      if (!checked.success) throw new StoreInputError(`invalid push subscription: ${describeIssues(checked.error.issues)}`);
      const key = keys.pushSubscriptions(operator);
      const stored: StoredPushSubscription = { subscription: checked.data, operator, created_at: new Date(now).toISOString() };
      await redis.hSet(key, field(checked.data.endpoint), JSON.stringify(stored));
      const current = await list(operator);
      for (const old of current.slice(0, Math.max(0, current.length - MAX_PUSH_SUBSCRIPTIONS))) await redis.hDel(key, field(old.subscription.endpoint));
    },
    async remove(operator, endpoint) {
      return (await redis.hDel(keys.pushSubscriptions(operator), field(endpoint))) > 0;
    },
    list,
  };
}
