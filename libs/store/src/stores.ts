/**
 * The stores of one deployment, built from one connection and one set of keys.
 */
import type { Logger } from '@ahp/protocol';
import { DEFAULT_DECISION_TTL_MS } from './decision-ttl.js';
import type { HookStore, InboxStore, PresenceStore, RequestStore, SessionStore, SignalStore } from './contracts.js';
import { StoreInputError } from './errors.js';
import { createHookStore } from './hook-store.js';
import { createInboxStore } from './inbox-store.js';
import { createOperatorSignalStore, type OperatorSignalStore } from './operator-signal-store.js';
import type { StoreKeys } from './keys.js';
import { createPresenceStore } from './presence-store.js';
import type { RedisClient } from './redis-client.js';
import type { ReplicaAcks } from './replica-acks.js';
import { teamFromPresence, type TeamResolver } from './request-records.js';
import { createRequestStore } from './request-store.js';
import { createSessionStore } from './session-store.js';
import { createSignalStore } from './signal-store.js';

export { DEFAULT_DECISION_TTL_MS };
/** Default of {@link RedisStoresOptions.signalTtlMs}: 24 hours. */
export const DEFAULT_SIGNAL_TTL_MS = 24 * 3_600_000;
/** Default of {@link RedisStoresOptions.signalLogMaxLen}. */
export const DEFAULT_SIGNAL_LOG_MAX_LEN = 100_000;
/** Default of {@link RedisStoresOptions.decisionStreamMaxLen}. */
export const DEFAULT_DECISION_STREAM_MAX_LEN = 10_000;
/** Default of {@link RedisStoresOptions.requestRetentionMs}: 7 days. */
export const DEFAULT_REQUEST_RETENTION_MS = 7 * 24 * 3_600_000;
/** Default of {@link RedisStoresOptions.requestEventsMaxLen}. */
export const DEFAULT_REQUEST_EVENTS_MAX_LEN = 100_000;

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
  /**
   * How long a settled request (approved, rejected, expired, cancelled) stays readable, with its
   * history, before Redis expires it. A pending request never expires while pending.
   * @defaultValue {@link DEFAULT_REQUEST_RETENTION_MS} (7 days)
   */
  requestRetentionMs?: number;
  /**
   * Approximate number of entries the request audit stream keeps (`XADD MAXLEN ~`).
   * @defaultValue {@link DEFAULT_REQUEST_EVENTS_MAX_LEN} (100 000)
   */
  requestEventsMaxLen?: number;
  /**
   * The team of an agent, for the requests' team index; resolved once per party when a request is
   * created. Pass the gateway's agent registry when it knows teams of agents that are offline.
   * @defaultValue the team in the agent's presence entry ({@link teamFromPresence}); none when offline
   */
  teamOf?: TeamResolver;
  /**
   * Replicas that must have a hook's decision or a request's change before it is routed on
   * ({@link createReplicaAcks}: `WAIT` on the master that holds it).
   * @defaultValue off
   */
  replicaAcks?: ReplicaAcks;
  /**
   * Where a stored record that a list or sweep skips because it does not parse is reported, with
   * its key (requests: `list`, `expireDue`; inboxes: `pending`, which also sets the entry aside).
   * @defaultValue silent
   */
  logger?: Logger;
  /** Most unacknowledged messages per inbox (the inbox store's `maxMessages`). */
  inboxMaxMessages?: number;
  /** Most bytes of messages per inbox (the inbox store's `maxBytes`). */
  inboxMaxBytes?: number;
  /** Most pending requests one agent may have open (the request store's `maxPendingPerSender`; default none). */
  maxPendingRequestsPerAgent?: number;
}

/** The stores {@link createRedisStores} returns. */
export interface RedisStores {
  hooks: HookStore;
  signals: SignalStore;
  presence: PresenceStore;
  sessions: SessionStore;
  requests: RequestStore;
  inboxes: InboxStore;
  operatorSignals: OperatorSignalStore;
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
  const decisionStreamMaxLen = positive('decisionStreamMaxLen', options.decisionStreamMaxLen ?? DEFAULT_DECISION_STREAM_MAX_LEN);
  const decisionStreamTtlMs = positive('decisionStreamTtlMs', options.decisionStreamTtlMs ?? decisionTtlMs);
  const replicaAcks = options.replicaAcks === undefined ? {} : { replicaAcks: options.replicaAcks };
  // Inbox notices travel on the same per-gateway stream as decisions, with the same bounds.
  const feed = { redis, keys, feedMaxLen: decisionStreamMaxLen, feedTtlMs: decisionStreamTtlMs };
  return {
    hooks: createHookStore({ redis, keys, decisionTtlMs, signalTtlMs, signalLogMaxLen, decisionStreamMaxLen, decisionStreamTtlMs, ...replicaAcks }),
    signals: createSignalStore({ redis, keys, signalLogMaxLen }),
    presence: createPresenceStore({ redis, keys }),
    sessions: createSessionStore({ redis, keys }),
    requests: createRequestStore({
      ...feed,
      retentionMs: positive('requestRetentionMs', options.requestRetentionMs ?? DEFAULT_REQUEST_RETENTION_MS),
      eventsMaxLen: positive('requestEventsMaxLen', options.requestEventsMaxLen ?? DEFAULT_REQUEST_EVENTS_MAX_LEN),
      teamOf: options.teamOf ?? teamFromPresence(redis, keys),
      ...replicaAcks,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      ...(options.maxPendingRequestsPerAgent === undefined ? {} : { maxPendingPerSender: options.maxPendingRequestsPerAgent }),
    }),
    inboxes: createInboxStore({
      ...feed,
      ...(options.inboxMaxMessages === undefined ? {} : { maxMessages: options.inboxMaxMessages }),
      ...(options.inboxMaxBytes === undefined ? {} : { maxBytes: options.inboxMaxBytes }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    }),
    operatorSignals: createOperatorSignalStore({ ...feed, signalLogMaxLen }),
  };
}
