/**
 * The stores of one deployment, built from one connection and one set of keys.
 */
import type { HookStore, PresenceStore, SessionStore, SignalStore } from './contracts.js';
import { StoreInputError } from './errors.js';
import { createHookStore } from './hook-store.js';
import type { StoreKeys } from './keys.js';
import { createPresenceStore } from './presence-store.js';
import type { RedisClient } from './redis-client.js';
import { createSessionStore } from './session-store.js';
import { createSignalStore } from './signal-store.js';

/** Default of {@link RedisStoresOptions.decisionTtlMs}: 15 minutes. */
export const DEFAULT_DECISION_TTL_MS = 15 * 60_000;
/** Default of {@link RedisStoresOptions.signalTtlMs}: 24 hours. */
export const DEFAULT_SIGNAL_TTL_MS = 24 * 3_600_000;
/** Default of {@link RedisStoresOptions.signalLogMaxLen}. */
export const DEFAULT_SIGNAL_LOG_MAX_LEN = 100_000;
/** Default of {@link RedisStoresOptions.decisionStreamMaxLen}. */
export const DEFAULT_DECISION_STREAM_MAX_LEN = 10_000;

/** Options of {@link createRedisStores}. */
export interface RedisStoresOptions {
  /** A connected client, shared by all stores (commands are pipelined on it; nothing here blocks). */
  redis: RedisClient;
  keys: StoreKeys;
  /**
   * How long a decided hook keeps its decision, so a re-sent hook gets the first result. A pending
   * hook lives until its deadline plus this long, so a late worker can still decide it.
   * @defaultValue {@link DEFAULT_DECISION_TTL_MS} (15 min)
   */
  decisionTtlMs?: number;
  /**
   * How long a signal record can be answered and read, counted from the decision that sent it.
   * @defaultValue {@link DEFAULT_SIGNAL_TTL_MS} (24 h)
   */
  signalTtlMs?: number;
  /**
   * Approximate number of entries the signal log stream keeps (`XADD MAXLEN ~`).
   * @defaultValue {@link DEFAULT_SIGNAL_LOG_MAX_LEN} (100 000)
   */
  signalLogMaxLen?: number;
  /**
   * Approximate number of entries a gateway's decision stream keeps. Only a feed that fell this
   * far behind would miss entries; the stored decision still answers a re-sent hook.
   * @defaultValue {@link DEFAULT_DECISION_STREAM_MAX_LEN} (10 000)
   */
  decisionStreamMaxLen?: number;
  /**
   * A gateway's decision stream expires this long after the last decision routed to it, so the
   * streams of gateways that are gone do not stay forever.
   * @defaultValue `decisionTtlMs`
   */
  decisionStreamTtlMs?: number;
}

/** The stores {@link createRedisStores} returns. */
export interface RedisStores {
  hooks: HookStore;
  signals: SignalStore;
  presence: PresenceStore;
  sessions: SessionStore;
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new StoreInputError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * Creates every Redis store over one client. The stores hold no state of their own: any number
 * of gateways and workers may create them over the same keys.
 */
export function createRedisStores(options: RedisStoresOptions): RedisStores {
  const { redis, keys } = options;
  const decisionTtlMs = positive('decisionTtlMs', options.decisionTtlMs ?? DEFAULT_DECISION_TTL_MS);
  const signalTtlMs = positive('signalTtlMs', options.signalTtlMs ?? DEFAULT_SIGNAL_TTL_MS);
  const signalLogMaxLen = positive('signalLogMaxLen', options.signalLogMaxLen ?? DEFAULT_SIGNAL_LOG_MAX_LEN);
  return {
    hooks: createHookStore({
      redis,
      keys,
      decisionTtlMs,
      signalTtlMs,
      signalLogMaxLen,
      decisionStreamMaxLen: positive('decisionStreamMaxLen', options.decisionStreamMaxLen ?? DEFAULT_DECISION_STREAM_MAX_LEN),
      decisionStreamTtlMs: positive('decisionStreamTtlMs', options.decisionStreamTtlMs ?? decisionTtlMs),
    }),
    signals: createSignalStore({ redis, keys, signalLogMaxLen }),
    presence: createPresenceStore({ redis, keys }),
    sessions: createSessionStore({ redis, keys }),
  };
}
