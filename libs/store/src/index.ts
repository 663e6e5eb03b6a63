/**
 * @ahp/store: the Redis implementation of the control plane's stores, shared by gateway and
 * workers. The public API is this list of named exports; import nothing from deeper paths.
 */

// --- contracts --------------------------------------------------------------------------------
export type {
  ConfigStore,
  DecideHookOptions,
  DecideRequestOutcome,
  DecisionFeed,
  GatewayFeed,
  GatewayFeedHandlers,
  InboxEntry,
  InboxNotice,
  InboxStore,
  RequestStore,
  EnqueueOptions,
  HookQueue,
  HookEvaluationInput,
  HookStore,
  OpenHookInput,
  OpenHookOutcome,
  PresenceStore,
  PresenceTouch,
  RuleCounterStore,
  SessionStore,
  SignalResponseOutcome,
  SignalStore,
} from './contracts.js';
// The logging seam every store takes; defined once, in the protocol, for the SDK's sake as well.
export type { Logger } from '@ahp/protocol';

// --- errors -----------------------------------------------------------------------------------
export { HookNotFoundError, InboxFullError, RequestForbiddenError, StoreDataError, StoreError, StoreInputError, TooManyRequestsError } from './errors.js';
export type { StoreDataIssue, StoreErrorCode } from './errors.js';
export { isStoreUnavailable } from './store-unavailable.js';

// --- keys and connections ---------------------------------------------------------------------
export { DEFAULT_KEY_PREFIX, HOOK_QUEUE_NAME, createKeys } from './keys.js';
export type { KeysOptions, StoreKeys } from './keys.js';
export { attachLogging, connectRedis, isClusterClient, parseClusterNodes, reconnectDelay, RedisTopologyError, scanKeys } from './redis-client.js';
export type { ClusterNodeAddress, ConnectRedisOptions, RedisClient, RedisClusterClient, RedisSingleClient } from './redis-client.js';
export { openBullConnection } from './bull-connection.js';
export type { BullConnection } from './bull-connection.js';
export { MAX_HOOK_QUEUE_SHARDS, hookQueueShards, keySlot, shardIndexOf, slotRangesCheck } from './hook-queue-shards.js';
export type { HookQueueShard } from './hook-queue-shards.js';

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
export { createGatewayFeed } from './gateway-feed.js';
export type { GatewayFeedOptions } from './gateway-feed.js';
export { DEFAULT_REQUEST_EVENTS_MAX_LEN, DEFAULT_REQUEST_RETENTION_MS } from './stores.js';
export { SYSTEM_ACTOR_ID, requestSummary } from './request-messages.js';
export { readRequestTeams, teamFromPresence } from './request-records.js';
export { CORRUPT_REQUEST_RETRY_MS } from './request-deadlines.js';
export type { TeamResolver } from './request-records.js';
export { REQUEST_EVENTS, readRequestEvents } from './request-events.js';
export type { ReadRequestEventsOptions, RequestEvent, RequestEventRecord } from './request-events.js';
export { createHookDetailStore, evaluationDetailJson, evaluationRecordsJson, evaluationSummaryJson } from './hook-detail-store.js';
export type { HookDelivery, HookDetailStore } from './hook-detail-store.js';
export { MAX_PENDING_OPERATOR_SIGNALS, createOperatorSignalStore } from './operator-signal-store.js';
export type { HookAidOrigin, HookAidSendOutcome, OperatorSignalSendOutcome, OperatorSignalStore, OperatorSignalStoreOptions } from './operator-signal-store.js';
export { readSignalLog } from './signal-log.js';
export type { ReadSignalLogOptions, SignalLogRecord } from './signal-log.js';
export { DEFAULT_EXPORT_CLOCK_SKEW_MS, DEFAULT_EXPORT_PAGE_SIZE, exportSignalLog, readSignalLogStats, toJsonl } from './signal-log-export.js';
export type { ExportSignalLogOptions, SignalLogExport } from './signal-log-export.js';
export { DEFAULT_CONFIG_RECHECK_MS, configDigest, createConfigStore } from './config-store.js';
export type { ConfigStoreOptions, RedisConfigStore } from './config-store.js';
export { DEFAULT_COMPLIANCE_TTL_MS, DEFAULT_REMEMBERED_HOOKS, createRuleCounterStore } from './rule-counter-store.js';
export { createEnforcementStore } from './enforcement-store.js';
export type { EnforcementResetResult, EnforcementStore, EnforcementStoreOptions } from './enforcement-store.js';
export type { RuleCounterStoreOptions } from './rule-counter-store.js';
export {
  DEFAULT_TOOL_APPROVAL_INDEX_TTL_MS,
  approvalBindsTo,
  approvalRefusal,
  createToolApprovalStore,
  settledByOf,
  toolInputDigest,
} from './tool-approval-store.js';
export type {
  ApprovalTerms,
  ConsumeToolApprovalResult,
  OpenToolApprovalInput,
  OpenToolApprovalResult,
  ToolApprovalStore,
  ToolApprovalStoreOptions,
  StoredToolApproval,
  ToolCall,
} from './tool-approval-store.js';
export { createToolGrantStore, grantIdFor } from './tool-grant-store.js';
export type { GrantCall, GrantFromApproval, ToolGrantStore, ToolGrantStoreOptions } from './tool-grant-store.js';
export { DEFAULT_TIMELINE_MAX_LEN, DEFAULT_TIMELINE_TTL_MS, createTimelineStore, timelineKey } from './timeline-store.js';
export type { TimelineAppend, TimelineStore, TimelineStoreOptions } from './timeline-store.js';

// --- queue ------------------------------------------------------------------------------------
export { HOOK_JOB_NAME, MAX_JOB_PRIORITY, createHookQueue, resolveHookQueueShardCount } from './hook-queue.js';
export type { HookQueueOptions, RedisHookQueue } from './hook-queue.js';
export { createHookWorker } from './hook-worker.js';
export {
  DEFAULT_NOTIFICATION_ATTEMPTS,
  DEFAULT_NOTIFICATION_BACKOFF_MS,
  NOTIFICATION_JOB_NAME,
  NOTIFICATION_QUEUE_NAME,
  createNotificationQueue,
  createNotificationWorker,
  notificationQueuePrefix,
} from './notification-queue.js';
export type {
  NotificationAttemptInfo,
  NotificationProcessor,
  NotificationQueue,
  NotificationQueueOptions,
  NotificationWorker,
  NotificationWorkerOptions,
} from './notification-queue.js';
export {
  DEFAULT_MAX_NOTIFICATION_DEAD_LETTERS,
  DEFAULT_MAX_NOTIFICATION_DELIVERIES,
  DEFAULT_NOTIFICATION_RECORD_TTL_MS,
  createNotificationStore,
} from './notification-store.js';
export type { NotificationDeliveryMeta, NotificationStore, NotificationStoreOptions } from './notification-store.js';
export { createNotificationThrottle } from './notification-throttle.js';
export type { NotificationThrottle, NotificationThrottleOptions, ThrottleAdmission } from './notification-throttle.js';
export { MIN_LINK_SECRET_CHARS, claimDecisionLink, decisionLinkUse, loadDecisionLinkSecret, newLinkId, signDecisionLink, verifyDecisionLink } from './decision-links.js';
export { MIN_REDACTION_KEY_CHARS, loadRedactionKey, redactionMarkerFor } from './redaction-key.js';
export type { LinkCheck, LinkUse } from './decision-links.js';
export { MAX_PUSH_SUBSCRIPTIONS, createPushSubscriptionStore, loadVapidKeys } from './push-store.js';
export type { PushSubscriptionStore, VapidKeys } from './push-store.js';
export { createRequestEventConsumer } from './request-event-consumer.js';
export type { RequestEventConsumer, RequestEventConsumerOptions } from './request-event-consumer.js';
export type { HookProcessor, HookWorker, HookWorkerOptions } from './hook-worker.js';
export { DEFAULT_FLEET_RETENTION_MS, DEFAULT_LIVE_MAX_LEN, FLEET_READ_FULL_EVERY_MS, FLEET_READ_RECENT_MS, MAX_FLEET_ROWS, createFleetStore, fleetAgentFromStored, rowToFleetAgent, storedFleetRow } from './fleet-store.js';
export type { FleetActivity, FleetReader, FleetStore, FleetStoreOptions, StoredFleetRow } from './fleet-store.js';
export { createHealthStore } from './health-store.js';
export { createClaudeCodeAnswerStore, type ClaudeCodeAnswerStore } from './claude-code-answer-store.js';
export type { HealthStore } from './health-store.js';
export { createLiveTail } from './live-tail.js';
export type { LiveTail, LiveTailOptions } from './live-tail.js';
// --- access control: rate limits shared by every gateway, the operators' audit trail ----------
export { AGENT_RATE_KIND, MAX_BURST, MAX_RATE_PER_SECOND, createRateLimiter, decodeRateReply, emissionIntervalUs } from './rate-limiter.js';
export type { LeaseRequest, RateDecision, RateLimit, RateLimiter, RateLimiterOptions } from './rate-limiter.js';
export { leaseTokens } from './rate-lease.js';
export type { LeasingRateLimiter, RateLeaseOptions } from './rate-lease.js';
export { checkReplicaAckOptions, createReplicaAcks, NO_REPLICA_ACKS, REPLICA_ACK_BACKOFF_MS } from './replica-acks.js';
export type { ReplicaAckOptions, ReplicaAcks } from './replica-acks.js';
export { DEFAULT_AUDIT_MAX_LEN, createAuditLog } from './audit-log.js';
export type { AuditFilter, AuditLog, AuditLogOptions } from './audit-log.js';
export { DEFAULT_INBOX_MAX_BYTES, DEFAULT_INBOX_MAX_MESSAGES, DEFAULT_INBOX_SEND_DEDUP_MS, INBOX_UNREADABLE_MAX_LEN, INBOX_UNREADABLE_TTL_MS } from './inbox-store.js';
export type { InboxStoreOptions } from './inbox-store.js';
// --- replaying a candidate configuration: the replay log and the replay queue ------------------
export {
  DEFAULT_REPLAY_LOG_MAX_CONTEXT_BYTES,
  DEFAULT_REPLAY_LOG_MAX_ENTRIES,
  DEFAULT_REPLAY_LOG_RETENTION_MS,
  REPLAY_LOG_BUCKETS,
  REPLAY_LOOKUP_AFTER_MS,
  REPLAY_LOOKUP_BEFORE_MS,
  REPLAY_LOOKUP_MAX_ENTRIES,
  createReplayLog,
  findReplayRecord,
  replayRecordOf,
} from './replay-log.js';
export type { ReadReplayLogOptions, ReplayLog, ReplayLogAppend, ReplayLogItem, ReplayLogOptions } from './replay-log.js';
export {
  CONFIG_REPLAY_CANCELLED,
  CONFIG_REPLAY_JOB_NAME,
  CONFIG_REPLAY_KEEP_MS,
  CONFIG_REPLAY_QUEUE_NAME,
  ConfigReplayCancelled,
  configReplayQueuePrefix,
  createConfigReplayQueue,
  createConfigReplayWorker,
} from './config-replay-queue.js';
export type {
  ConfigReplayJobContext,
  ConfigReplayProcessor,
  ConfigReplayQueue,
  ConfigReplayQueueOptions,
  ConfigReplayWorker,
  ConfigReplayWorkerOptions,
} from './config-replay-queue.js';
export { SHADOW_STATS_RETENTION_MS, createShadowConfigStore, shadowKeys } from './shadow-config-store.js';
export type { DropOutcome, PromoteOutcome, ShadowConfigStore, ShadowConfigStoreOptions, ShadowKeys, ShadowObservation, ShadowStats } from './shadow-config-store.js';
