/**
 * @ahp/store: the Redis implementation of the control plane's stores, shared by gateway and
 * workers. The public API is this list of named exports; import nothing from deeper paths.
 */

// --- contracts --------------------------------------------------------------------------------
export type {
  DecisionFeed,
  HookQueue,
  HookStore,
  Logger,
  OpenHookInput,
  OpenHookOutcome,
  PresenceStore,
  SessionOutcome,
  SessionStore,
  SignalResponseOutcome,
  SignalStore,
} from './contracts.js';

// --- errors -----------------------------------------------------------------------------------
export { HookNotFoundError, StoreDataError, StoreError, StoreInputError } from './errors.js';
export type { StoreDataIssue, StoreErrorCode } from './errors.js';

// --- keys and connections ---------------------------------------------------------------------
export { DEFAULT_KEY_PREFIX, HOOK_QUEUE_NAME, createKeys } from './keys.js';
export type { KeysOptions, StoreKeys } from './keys.js';
export { attachLogging, connectRedis, reconnectDelay } from './redis-client.js';
export type { ConnectRedisOptions, RedisClient } from './redis-client.js';

// --- stores -----------------------------------------------------------------------------------
export {
  DEFAULT_DECISION_STREAM_MAX_LEN,
  DEFAULT_DECISION_TTL_MS,
  DEFAULT_SIGNAL_LOG_MAX_LEN,
  DEFAULT_SIGNAL_TTL_MS,
  createRedisStores,
} from './stores.js';
export type { RedisStores, RedisStoresOptions } from './stores.js';
export { createDecisionFeed } from './decision-feed.js';
export type { DecisionFeedOptions } from './decision-feed.js';
export { readSignalLog } from './signal-log.js';
export type { ReadSignalLogOptions, SignalLogRecord } from './signal-log.js';

// --- queue ------------------------------------------------------------------------------------
export { HOOK_JOB_NAME, createHookQueue } from './hook-queue.js';
export type { HookQueueOptions, RedisHookQueue } from './hook-queue.js';
export { createHookWorker } from './hook-worker.js';
export type { HookProcessor, HookWorker, HookWorkerOptions } from './hook-worker.js';
