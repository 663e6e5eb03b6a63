/**
 * What became of each notification: one record per delivery (a request to a channel) with every
 * attempt, an index of recent deliveries, and the dead-letter list of deliveries given up after
 * their last attempt. Written by the workers that deliver, read by the operator API.
 *
 * Every piece is bounded: a delivery's hash and attempts expire after `ttlMs` (7 days), the index
 * keeps the newest `maxDeliveries`, the dead-letter list the newest `maxDeadLetters`. Writes are
 * single-key commands (Cluster-safe); a crash between two of them leaves a record without its
 * index entry or the reverse, which `recent` skips.
 */
import {
  NotificationAttemptSchema,
  NotificationDeadLetterSchema,
  NotificationDeliverySchema,
  type NotificationAttempt,
  type NotificationDeadLetter,
  type NotificationDelivery,
} from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** Deliveries kept in the index: 1000. */
export const DEFAULT_MAX_NOTIFICATION_DELIVERIES = 1000;
/** Dead letters kept: 1000. */
export const DEFAULT_MAX_NOTIFICATION_DEAD_LETTERS = 1000;
/** How long a delivery's record is kept: 7 days. */
export const DEFAULT_NOTIFICATION_RECORD_TTL_MS = 7 * 24 * 3_600_000;
/** Attempts kept per delivery (BullMQ's attempts are far fewer; this only bounds a misconfiguration). */
const MAX_ATTEMPTS_KEPT = 50;

/** What a delivery is about, recorded when its job is queued. */
export type NotificationDeliveryMeta = Omit<NotificationDelivery, 'status' | 'attempts' | 'replayed_by'>;
const MetaSchema = NotificationDeliverySchema.omit({ status: true, attempts: true, replayed_by: true });
const ReplayedBySchema = NotificationDeliverySchema.shape.replayed_by.unwrap();

function parseStoredJsonOrUndefined(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
const StatusSchema = NotificationDeliverySchema.shape.status;

export interface NotificationStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
  /** @defaultValue {@link DEFAULT_MAX_NOTIFICATION_DELIVERIES} */
  maxDeliveries?: number;
  /** @defaultValue {@link DEFAULT_MAX_NOTIFICATION_DEAD_LETTERS} */
  maxDeadLetters?: number;
  /** @defaultValue {@link DEFAULT_NOTIFICATION_RECORD_TTL_MS} */
  ttlMs?: number;
}

export interface NotificationStore {
  /** Records a new delivery as `pending` (idempotent: a delivery already recorded keeps its record). */
  open(meta: NotificationDeliveryMeta): Promise<void>;
  /** Appends one attempt to a delivery. */
  recordAttempt(deliveryId: string, attempt: NotificationAttempt): Promise<void>;
  /** Marks a delivery delivered. */
  delivered(deliveryId: string): Promise<void>;
  /** Marks a delivery skipped: its request no longer waits. */
  skipped(deliveryId: string): Promise<void>;
  /**
   * A dead delivery queued again by `operator`: its status back to `pending`, the operator added
   * to `replayed_by`, and its entries taken off the dead-letter list. False when no record of
   * the delivery is kept (expired).
   */
  replayed(deliveryId: string, operator: string): Promise<boolean>;
  /** The record of one delivery with its attempts, or null. */
  get(deliveryId: string): Promise<NotificationDelivery | null>;
  /** Marks a delivery dead and puts it on the dead-letter list (newest first, capped). */
  deadLetter(letter: NotificationDeadLetter): Promise<void>;
  /** The newest deliveries first, with their attempts. */
  recent(limit: number): Promise<NotificationDelivery[]>;
  /** The newest dead letters first. */
  deadLetters(limit: number): Promise<NotificationDeadLetter[]>;
}

/** The result shape of a zod schema's `safeParse` (this library imports no zod). */
interface SafeParser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

function checked<T>(schema: SafeParser<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new StoreInputError(`invalid ${what}: ${describeIssues(result.error.issues)}`);
  return result.data;
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new StoreInputError(`limit must be an integer from 1 to 1000, got ${limit}`);
  return limit;
}

/** Creates the Redis notification store; see {@link NotificationStore}. Read-backs are parsed with the protocol's schemas (StoreDataError otherwise). */
export function createNotificationStore(options: NotificationStoreOptions): NotificationStore {
  const { redis, keys } = options;
  const maxDeliveries = options.maxDeliveries ?? DEFAULT_MAX_NOTIFICATION_DELIVERIES;
  const maxDeadLetters = options.maxDeadLetters ?? DEFAULT_MAX_NOTIFICATION_DEAD_LETTERS;
  const ttlMs = options.ttlMs ?? DEFAULT_NOTIFICATION_RECORD_TTL_MS;

  async function read(id: string): Promise<NotificationDelivery | null> {
    const key = keys.notificationDelivery(id);
    const attemptsKey = keys.notificationAttempts(id);
    const [[meta, status, replayedBy], rawAttempts] = await Promise.all([redis.hmGet(key, ['meta', 'status', 'replayed_by']), redis.lRange(attemptsKey, 0, -1)]);
    // Expired, or the index entry was written before a crash cut the record short: skip it.
    if (meta === null || meta === undefined) return null;
    const attempts = rawAttempts.map((raw, index) => parseStored(NotificationAttemptSchema, parseStoredJson(raw, attemptsKey, String(index)), attemptsKey, String(index)));
    return {
      ...parseStored(MetaSchema, parseStoredJson(meta, key, 'meta'), key, 'meta'),
      status: parseStored(StatusSchema, status ?? 'pending', key, 'status'),
      ...(replayedBy === null || replayedBy === undefined ? {} : { replayed_by: parseStored(ReplayedBySchema, parseStoredJson(replayedBy, key, 'replayed_by'), key, 'replayed_by') }),
      attempts,
    } satisfies NotificationDelivery;
  }

  async function setStatus(deliveryId: string, status: 'delivered' | 'dead' | 'skipped'): Promise<void> {
    const key = keys.notificationDelivery(deliveryId);
    await redis.hSet(key, 'status', status);
    await redis.pExpire(key, ttlMs);
  }

  return {
    async open(meta) {
      const valid = checked(MetaSchema, meta, 'notification delivery');
      const key = keys.notificationDelivery(valid.delivery_id);
      const fresh = await redis.hSetNX(key, 'meta', JSON.stringify(valid));
      if (!fresh) return;
      await redis.hSet(key, 'status', 'pending');
      await redis.pExpire(key, ttlMs);
      await redis.zAdd(keys.notificationDeliveries, { score: Date.parse(valid.created_at), value: valid.delivery_id });
      await redis.zRemRangeByRank(keys.notificationDeliveries, 0, -(maxDeliveries + 1));
    },

    async recordAttempt(deliveryId, attempt) {
      const valid = checked(NotificationAttemptSchema, attempt, 'notification attempt');
      const key = keys.notificationAttempts(deliveryId);
      await redis.rPush(key, JSON.stringify(valid));
      await redis.lTrim(key, -MAX_ATTEMPTS_KEPT, -1);
      await redis.pExpire(key, ttlMs);
    },

    delivered: (deliveryId) => setStatus(deliveryId, 'delivered'),
    skipped: (deliveryId) => setStatus(deliveryId, 'skipped'),

    async deadLetter(letter) {
      const valid = checked(NotificationDeadLetterSchema, letter, 'dead letter');
      await setStatus(valid.delivery_id, 'dead');
      await redis.lPush(keys.notificationDeadLetters, JSON.stringify(valid));
      await redis.lTrim(keys.notificationDeadLetters, 0, maxDeadLetters - 1);
    },

    async replayed(deliveryId, operator) {
      const key = keys.notificationDelivery(deliveryId);
      const [meta, replayedBy] = await redis.hmGet(key, ['meta', 'replayed_by']);
      if (meta === null || meta === undefined) return false;
      const before = replayedBy === null || replayedBy === undefined ? [] : parseStored(ReplayedBySchema, parseStoredJson(replayedBy, key, 'replayed_by'), key, 'replayed_by');
      await redis.hSet(key, { status: 'pending', replayed_by: JSON.stringify([...before, operator].slice(-50)) });
      await redis.pExpire(key, ttlMs);
      // Its dead letters (one per time it died) leave the list; they are recorded in its attempts.
      const dead = await redis.lRange(keys.notificationDeadLetters, 0, -1);
      for (const raw of dead) {
        const parsed = NotificationDeadLetterSchema.safeParse(parseStoredJsonOrUndefined(raw));
        if (parsed.success && parsed.data.delivery_id === deliveryId) await redis.lRem(keys.notificationDeadLetters, 0, raw);
      }
      return true;
    },

    get: read,

    async recent(limit) {
      const ids = await redis.zRange(keys.notificationDeliveries, 0, checkLimit(limit) - 1, { REV: true });
      const records = await Promise.all(ids.map(read));
      return records.filter((record): record is NotificationDelivery => record !== null);
    },

    async deadLetters(limit) {
      const key = keys.notificationDeadLetters;
      const raws = await redis.lRange(key, 0, checkLimit(limit) - 1);
      return raws.map((raw, index) => parseStored(NotificationDeadLetterSchema, parseStoredJson(raw, key, String(index)), key, String(index)));
    },
  };
}
