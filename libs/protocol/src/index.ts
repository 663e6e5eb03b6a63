/**
 * @ahp/protocol: the wire protocol of AHP as zod schemas, inferred types and pure functions.
 * The public API is this list of named exports; import nothing from deeper paths.
 */

// --- Redis configuration -------------------------------------------------------------------
export { MAX_CLUSTER_ROOT_NODES, RedisClusterNodesSchema, RedisClusterNodesTextSchema, RedisNodeAddressSchema } from './redis-config.js';
export type { RedisNodeAddress } from './redis-config.js';

// --- primitives ---------------------------------------------------------------------------
export {
  FORBIDDEN_KEYS,
  IdSchema,
  JsonObjectSchema,
  JsonValueSchema,
  LIMITS,
  LongTextSchema,
  ShortStringSchema,
  TextSchema,
  TimestampSchema,
  UuidSchema,
  boundedArray,
  inspectJsonValue,
} from './primitives.js';
export type { Id, JsonObject, JsonValue, JsonValueIssue, Timestamp } from './primitives.js';
// --- secrets: what counts as one, and blanking them out of logs and queued data ------------
export { REDACTED, SECRET_KEY_PATTERNS, isSecretKey, normalizeKeyName, redactFreeText, redactSecrets, redactText } from './redact.js';
export type { RedactOptions } from './redact.js';

// --- domain: signals, decisions, triggers, envelope, plans, requests, inbox ---------------
export {
  DECISION_LEVELS,
  DecisionLevelSchema,
  INTENSITIES,
  IntensitySchema,
  compareIntensity,
  intensityForLevel,
  isStrongerThan,
  levelForIntensity,
  strongestIntensity,
} from './intensity.js';
export type { DecisionLevel, Intensity } from './intensity.js';
export {
  AidSuggestionSchema,
  AidingDecisionSchema,
  BlockResolutionSchema,
  BlockingDecisionSchema,
  ControllingDecisionSchema,
  ModificationSchema,
  ModificationTargetSchema,
  PromptingDecisionSchema,
  SeveritySchema,
  SignalPayloadSchema,
} from './decision.js';
export type {
  AidSuggestion,
  AidingDecision,
  BlockResolution,
  BlockingDecision,
  ControllingDecision,
  Modification,
  PromptingDecision,
  Severity,
  SignalPayload,
} from './decision.js';
export {
  DOMAIN_TRIGGERS,
  FailurePolicySchema,
  HOOK_TRIGGERS,
  HookTriggerSchema,
  LIFECYCLE_TRIGGERS,
  TRIGGERS,
  allowedIntensities,
  defaultFailurePolicy,
  isIntensityAllowed,
  triggerPhase,
} from './trigger.js';
export type { FailurePolicy, HookTrigger, TriggerInfo, TriggerPhase } from './trigger.js';
export {
  HOOK_CONTEXT_SCHEMAS,
  HookContextExtraSchema,
  HookContextsSchema,
  HookToolCallSchema,
  HookToolResultSchema,
  parseHookContext,
} from './hook-context.js';
export type { HookContextParseResult } from './hook-context.js';
export {
  SIGNAL_TYPES,
  SignalCategorySchema,
  SignalHeaderSchema,
  SignalSchema,
  SignalTypeSchema,
  signalCategory,
} from './signal.js';
export type { Signal, SignalCategory, SignalHeader, SignalType } from './signal.js';
export {
  ACTIONS_BY_INTENSITY,
  CONSUMPTION_ACTIONS,
  ConsumptionActionSchema,
  SignalLogEntrySchema,
  SignalResponseSchema,
  actionsForIntensity,
  checkSignalResponse,
  intensityOfAction,
  isActionValidFor,
} from './signal-response.js';
export type { ConsumptionAction, SignalLogEntry, SignalResponse, SignalResponseCheck } from './signal-response.js';
export {
  DecidedBySchema,
  HookDecisionErrorSchema,
  HookDecisionSchema,
  aggregateSignals,
  failurePolicyDecision,
  stricterModification,
} from './hook-decision.js';
export type {
  AggregateSignalsInput,
  DecidedBy,
  FailurePolicyDecisionInput,
  HookDecision,
  HookDecisionError,
} from './hook-decision.js';
export {
  DEFAULT_APPROVAL_DEADLINE_MS,
  HOOKS_CONFIG_LIMITS,
  HOOK_ORACLE_NAME_PATTERN,
  HookActionSchema,
  HookApprovalSchema,
  HookBudgetMsSchema,
  HookConfigSchema,
  HookDurationSchema,
  HookEscalationSchema,
  HookEscalationStepsSchema,
  HookExpressionLangSchema,
  HookExpressionSchema,
  HookOracleNameSchema,
  HookOracleSchema,
  HookRuleIdSchema,
  HookRuleOverrideSchema,
  HookRuleSchema,
  HookSuggestionSchema,
  HookTemplateSchema,
  HooksConfigSchema,
  durationToMs,
  escalationSteps,
} from './hooks-config.js';
export type {
  HookAction,
  HookApproval,
  HookConfig,
  HookDuration,
  HookEscalation,
  HookExpressionLang,
  HookOracle,
  HookRule,
  HookRuleOverride,
  HookSuggestion,
  HooksConfig,
  HooksConfigIssueParams,
} from './hooks-config.js';
export {
  ControlEnvelopeSchema,
  ControlFormatSchema,
  ControlKindSchema,
  ControlSignalEventSchema,
  MAX_CONTROL_OUTPUT_CHARS,
  MAX_ENVELOPE_CHARS,
  classifyControlOutput,
  controlSignalEvent,
  detectLegacyControl,
  tryParseControlEnvelope,
} from './control-envelope.js';
export type {
  ClassifyControlOptions,
  ControlClassification,
  ControlEnvelope,
  ControlFormat,
  ControlKind,
  ControlReadMode,
  ControlSignalEvent,
} from './control-envelope.js';
export { PlanSchema, PlanStepSchema, PlanStepStatusSchema, findDependencyCycle, readySteps } from './plan.js';
export { DEFAULT_ANSWER_GRACE_MS, answerGraceMs } from './hooks-config.js';
export { mustAnswer } from './signal-answer.js';
export { ANY_TEAM, TeamPoliciesSchema, TeamPolicySchema, ToolNamePatternSchema, matchesToolPattern, planGatePolicy } from './team-policy.js';
export type { PlanGatePolicy, TeamPolicies, TeamPolicy } from './team-policy.js';
export {
  EnvVariableNameSchema,
  NOTIFICATIONS_LIMITS,
  NOTIFICATION_CHANNEL_TYPES,
  NOTIFICATION_DELIVERY_STATUSES,
  NotificationAttemptSchema,
  NotificationBodySchema,
  NotificationChannelNameSchema,
  NotificationChannelSchema,
  NotificationDeadLetterSchema,
  NotificationDeliveriesQuerySchema,
  NotificationDeliveriesResponseSchema,
  NotificationDeliverySchema,
  NotificationJobDataSchema,
  NotificationRouteSchema,
  NotificationUrlSchema,
  NotificationsConfigSchema,
  SlackChannelSchema,
  WaitingRequestSchema,
  WebhookChannelSchema,
  routeMatches,
  routeNotification,
  ChannelOperatorSchema,
  DecisionLinkBodySchema,
  DecisionLinkClaimsSchema,
  DecisionLinkInspectResponseSchema,
  DecisionLinkInfoSchema,
  DecisionLinkTokenSchema,
  DecisionLinksSchema,
  EmailAddressSchema,
  EmailChannelSchema,
  EscalationTierSchema,
  LINK_DECISIONS,
  LINK_REFUSALS,
  LinkDecisionSchema,
  NotificationReplayResponseSchema,
  escalationDelayMs,
  routeEscalation,
  PushChannelSchema,
  PushPayloadSchema,
  PushSubscriptionSchema,
  PushSubscriptionsResponseSchema,
  PushUnsubscribeBodySchema,
  StoredPushSubscriptionSchema,
  VapidKeyResponseSchema,
} from './notifications.js';
export type {
  NotificationAttempt,
  NotificationBody,
  NotificationChannel,
  NotificationDeadLetter,
  NotificationDeliveriesResponse,
  NotificationDelivery,
  NotificationJobData,
  NotificationRoute,
  NotificationSubject,
  NotificationsConfig,
  SlackChannel,
  WaitingRequest,
  WebhookChannel,
  DecisionLinkBody,
  DecisionLinkClaims,
  DecisionLinkInspectResponse,
  DecisionLinkInfo,
  DecisionLinks,
  EmailChannel,
  EscalationTier,
  LinkDecision,
  LinkRefusal,
  NotificationReplayResponse,
  ParsedNotificationJobData,
  NotificationJobInput,
  RoutedEscalation,
  PushChannel,
  PushPayload,
  PushSubscriptionData,
  PushSubscriptionsResponse,
  StoredPushSubscription,
  VapidKeyResponse,
} from './notifications.js';
export type { Plan, PlanStep, PlanStepStatus } from './plan.js';
export { VerificationDetailSchema, VerificationResultSchema, VerificationTypeSchema } from './verification.js';
export type { VerificationDetail, VerificationResult, VerificationType } from './verification.js';
export {
  CIRCUIT_BREAKER_CODES,
  CircuitBreakerCodeSchema,
  CircuitBreakerLimitsSchema,
  DEFAULT_CIRCUIT_BREAKER_LIMITS,
  StopReasonSchema,
  exceedsIterations,
  isStuttering,
} from './circuit-breaker.js';
export type { CircuitBreakerCode, CircuitBreakerLimits, StopReason } from './circuit-breaker.js';
export {
  ApprovalOnExpirySchema,
  PromptFallbackSchema,
  MAX_APPROVAL_RULES,
  PlanApprovalPayloadSchema,
  ProtocolResponseSchema,
  ProtocolStateSchema,
  REQUEST_TYPES,
  RESPONSE_TYPE_FOR,
  RequestIdSchema,
  RequestStatusSchema,
  RequestTargetSchema,
  RequestTypeSchema,
  ResponseTypeSchema,
  ShutdownRequestPayloadSchema,
  InterventionPayloadSchema,
  ToolApprovalPayloadSchema,
  applyResponse,
  cancelRequest,
  createRequest,
  expireRequest,
  isPastDeadline,
  isTerminalStatus,
  requestTypeFor,
  responseTypeFor,
} from './request.js';
export type {
  ApplyResponseResult,
  ApprovalOnExpiry,
  PromptFallback,
  CancelRequestResult,
  CreateRequestInput,
  DecisionContext,
  ExpireRequestResult,
  PlanApprovalPayload,
  ProtocolResponse,
  ProtocolState,
  RequestId,
  RequestStatus,
  RequestTarget,
  RequestType,
  ResponseType,
  ShutdownRequestPayload,
  InterventionPayload,
  ToolApprovalPayload,
} from './request.js';
export {
  INBOX_MESSAGE_TYPES,
  InboxMessageSchema,
  InboxMessageTypeSchema,
  InboxMetadataSchema,
  isProtocolMessage,
  isProtocolResponse,
  requestIdOf,
  requestMessageType,
  toProtocolResponse,
} from './inbox.js';
export type { InboxMessage, InboxMessageType, InboxMetadata } from './inbox.js';

// --- identities and what the control plane keeps in Redis ----------------------------------
export {
  AgentIdentitySchema,
  AgentRoleSchema,
  AgentTokenEntrySchema,
  AgentCredentialsFileSchema,
  AgentTokensFileSchema,
  Sha256HexSchema,
} from './agent.js';
export type { AgentCredentialsFile, AgentIdentity, AgentRole, AgentTokenEntry, AgentTokensFile } from './agent.js';
export {
  EpochMsSchema,
  GatewayInfoSchema,
  HookCorrelationSchema,
  HookJobDataSchema,
  HookStatusSchema,
  PresenceEntrySchema,
} from './hook-job.js';
export type { GatewayInfo, HookCorrelation, HookJobData, HookStatus, PresenceEntry } from './hook-job.js';
export {
  DrillDownSignalSchema,
  HookDrillDownSchema,
  HookEvaluationDetailSchema,
  HookStageLatenciesSchema,
  MAX_DRILL_DOWN_CONTEXT_BYTES,
  OracleOutcomeSchema,
  OracleVerdictSchema,
  stageLatencies,
} from './hook-drill-down.js';
export type { DrillDownSignal, HookDrillDown, HookEvaluationDetail, HookStageLatencies, OracleOutcome, OracleVerdict } from './hook-drill-down.js';
export { SignalRecordSchema } from './signal-record.js';
export type { SignalRecord } from './signal-record.js';
export {
  DEFAULT_OPERATOR_SIGNAL_TTL_MS,
  MAX_OPERATOR_SIGNAL_TTL_MS,
  OPERATOR_SIGNAL_INTENSITIES,
  OperatorSignalBodySchema,
  OperatorSignalResponseSchema,
  operatorSignal,
  operatorSignalSource,
} from './operator-signal.js';
export type { OperatorSignalBody, OperatorSignalBodyInput, OperatorSignalOrigin, OperatorSignalResponse } from './operator-signal.js';

// --- operator API: operators, their tokens, request bodies and responses ----------------------
export {
  AUDIT_ACTIONS,
  AUDIT_OUTCOMES,
  AgentListResponseSchema,
  AuditActionSchema,
  AuditEntrySchema,
  AuditListResponseSchema,
  AuditOutcomeSchema,
  AuditQuerySchema,
  AuditRecordSchema,
  ConfigHistoryQuerySchema,
  ConfigHistoryResponseSchema,
  ConfigVersionDetailSchema,
  ListRequestsQuerySchema,
  MAX_CONFIG_SOURCE_BYTES,
  MAX_LIST_LIMIT,
  MAX_SCOPE_TEAMS,
  MAX_SIGNAL_LOG_LIMIT,
  OPERATOR_ROLES,
  OperatorErrorBodySchema,
  OperatorIdentitySchema,
  OperatorMeResponseSchema,
  OperatorRoleSchema,
  OperatorScopeSchema,
  OperatorTokenEntrySchema,
  OperatorTokensFileSchema,
  PublishConfigBodySchema,
  PublishConfigResponseSchema,
  HooksConfigIssueSchema,
  HooksConfigWarningSchema,
  ValidateConfigResponseSchema,
  RequestActorSchema,
  RequestDecisionBodySchema,
  RequestDecisionResponseSchema,
  RequestDetailResponseSchema,
  RequestHistoryEntrySchema,
  RequestListResponseSchema,
  SignalLogListResponseSchema,
  SignalLogQuerySchema,
  SignalLogStatsQuerySchema,
  TimelineEntrySchema,
  TimelineQuerySchema,
  TimelineResponseSchema,
  isFleetWide,
  roleAllows,
  scopeCoversRequestType,
  scopeCoversTeam,
} from './operator.js';
export type {
  AgentListResponse,
  AuditAction,
  AuditEntry,
  AuditListResponse,
  AuditOutcome,
  AuditQuery,
  AuditRecord,
  ConfigHistoryQuery,
  ConfigHistoryResponse,
  ConfigVersionDetail,
  ListRequestsQuery,
  OperatorErrorBody,
  OperatorIdentity,
  OperatorMeResponse,
  OperatorRole,
  OperatorScope,
  OperatorTokenEntry,
  OperatorTokensFile,
  PublishConfigBody,
  PublishConfigResponse,
  HooksConfigIssue,
  HooksConfigWarning,
  ValidateConfigResponse,
  RequestActor,
  RequestDecisionBody,
  RequestDecisionResponse,
  RequestDetailResponse,
  RequestHistoryEntry,
  RequestListResponse,
  SignalLogListResponse,
  SignalLogQuery,
  SignalLogStatsQuery,
  TimelineEntry,
  TimelineQuery,
  TimelineResponse,
} from './operator.js';

// --- wire: the shape of JSON text, bounded before parsing ----------------------------------
export { FRAME_CAPTURED_KEYS, FRAME_SHAPE_LIMITS, measureJsonShape } from './json-shape-limits.js';
export { applyModifications } from './modifications.js';
export { parseOnce } from './parse-once.js';
export type { CapturedKeys, JsonShape, JsonShapeLimits, JsonShapeViolation } from './json-shape-limits.js';
// --- wire: errors, frames -------------------------------------------------------------------
export {
  AhpErrorSchema,
  CLOSE_CODES,
  CLOSE_CODE_RANGES,
  ERROR_CODES,
  ERROR_CODE_LIST,
  ErrorCodeSchema,
  STANDARD_CLOSE_CODES,
  closeCodeAllowsReconnect,
  closeCodeName,
  isErrorCode,
  makeError,
} from './errors.js';
export type { AhpError, CloseCode, CloseCodeName, ErrorCode, ErrorCodeInfo, MakeErrorOptions } from './errors.js';
export { FRAME_LIMITS, FrameIdSchema, PROTOCOL_VERSION, SeqSchema, SUPPORTED_PROTOCOL_VERSIONS } from './frame-primitives.js';
export { AgentEventSchema, CancelFrameSchema, ClientFrameSchema, EventFrameSchema, HelloFrameSchema, HookFrameSchema, InboxAckFrameSchema, OpenRequestSchema, OutgoingMessageSchema, RequestFrameSchema, ResponseFrameSchema, SendableMessageTypeSchema, SendFrameSchema, SignalResponseFrameSchema, TeamActivityEventSchema } from './client-frames.js';
export type { AgentEvent, CancelFrame, ClientFrame, ClientFrameInput, ClientFrameType, EventFrame, HelloFrame, HookFrame, InboxAckFrame, OpenRequest, OutgoingMessage, RequestFrame, ResponseFrame, SendableMessageType, SendFrame, SignalResponseFrame, TeamActivityEvent } from './client-frames.js';
export { AckFrameSchema, AckResultSchema, ConnectionLimitsSchema, DecisionFrameSchema, ErrorFrameSchema, GoawayFrameSchema, InboxPushFrameSchema, RequestUpdateFrameSchema, ServerFrameSchema, SignalPushFrameSchema, WelcomeAgentSchema, WelcomeFrameSchema } from './server-frames.js';
export type { AckFrame, AckResult, ConnectionLimits, DecisionFrame, ErrorFrame, GoawayFrame, InboxPushFrame, RequestUpdateFrame, ServerFrame, ServerFrameInput, ServerFrameType, SignalPushFrame, WelcomeAgent, WelcomeFrame } from './server-frames.js';
export { assertNever, CLIENT_FRAME_TYPES, FRAME_KINDS, isClientFrameType, isReplyFrame, isServerFrameType, REPLY_TYPE_FOR, SERVER_FRAME_TYPES } from './frame-types.js';
export type { Frame, FrameKind, FrameType, PushFrame, ReplyFrame } from './frame-types.js';
export { parseClientFrame, parseServerFrame, utf8ByteLength } from './frames.js';
export type { FrameIssue, FrameParseResult } from './frames.js';

// --- hooks configuration versions and the exported signal log (issue: rule engine, distributed half) ---
export {
  ConfigVersionNumberSchema,
  ConfigVersionSummarySchema,
  MAX_CONFIG_SOURCE_CHARS,
  StoredConfigVersionSchema,
} from './config-version.js';
export type { ConfigVersionSummary, StoredConfigVersion } from './config-version.js';
export {
  LatencyStatsSchema,
  SIGNAL_ANSWER_ORIGINS,
  SignalAnswerOriginSchema,
  SignalLogActionStatsSchema,
  SignalLogFilterSchema,
  SignalLogGroupStatsSchema,
  SignalLogLineSchema,
  SignalLogStatsSchema,
  signalLogStats,
} from './signal-log-export.js';
export type {
  LatencyStats,
  SignalAnswerOrigin,
  SignalLogActionStats,
  SignalLogFilter,
  SignalLogGroupStats,
  SignalLogLine,
  SignalLogStats,
} from './signal-log-export.js';
// --- the MCP gateway's configuration file and the mcp field of tool hook contexts (see mcp-gateway.ts) ---
export {
  HookMcpCallSchema,
  McpGatewayConfigSchema,
  McpHttpUpstreamSchema,
  McpServerConfigSchema,
  McpServerIdSchema,
  McpStdioUpstreamSchema,
  McpToolPatternSchema,
  McpToolRuleSchema,
  McpToolSettingsSchema,
  mcpToolName,
  mcpToolVisible,
} from './mcp-gateway.js';
export type { McpGatewayConfig, McpServerConfig, McpToolRule, McpToolSettings } from './mcp-gateway.js';
// --- Claude Code hooks (its foreign wire format; see claude-code.ts) ---
export {
  CLAUDE_CODE_EVENTS,
  ClaudeCodeEventSchema,
  ClaudeCodeHookInputSchema,
  ClaudeCodeHookOutputSchema,
  ClaudeCodeHookSpecificOutputSchema,
  ClaudeCodePendingAnswerSchema,
  ClaudeCodePendingAnswersSchema,
  ClaudeCodePermissionDecisionSchema,
  ClaudeCodeSettingsHookSchema,
  ClaudeCodeSettingsMatcherSchema,
  ClaudeCodeSettingsSchema,
} from './claude-code.js';
export type {
  ClaudeCodeEvent,
  ClaudeCodePendingAnswer,
  ClaudeCodeSettings,
  ClaudeCodeSettingsHook,
  ClaudeCodeSettingsMatcher,
  ClaudeCodeHookInput,
  ClaudeCodeHookOutput,
  ClaudeCodeHookSpecificOutput,
  ClaudeCodePermissionDecision,
} from './claude-code.js';
// --- OpenAI Codex hooks (its foreign wire format; see codex.ts) ---
export {
  CODEX_EVENTS,
  CODEX_OUTPUT_SCHEMAS,
  CodexCompactOutputSchema,
  CodexEventSchema,
  CodexHookInputSchema,
  CodexHooksFileGroupSchema,
  CodexHooksFileHandlerSchema,
  CodexHooksFileSchema,
  CodexPermissionRequestOutputSchema,
  CodexPostToolUseOutputSchema,
  CodexPreToolUseOutputSchema,
  CodexSessionStartOutputSchema,
  CodexStopFailureOutputSchema,
  CodexStopOutputSchema,
  CodexSubagentStartOutputSchema,
  CodexUserPromptSubmitOutputSchema,
} from './codex.js';
export type { CodexEvent, CodexHookInput, CodexHookOutput, CodexHooksFile, CodexHooksFileGroup } from './codex.js';
// --- GitHub Copilot hooks (its foreign wire format; see copilot.ts) ---
export {
  COPILOT_EVENTS,
  COPILOT_OUTPUT_SCHEMAS,
  COPILOT_PASCAL_EVENTS,
  COPILOT_UNEVALUATED_EVENTS,
  CopilotEventSchema,
  CopilotHookInputSchema,
  CopilotHooksFileHandlerSchema,
  CopilotHooksFileSchema,
  CopilotNotificationOutputSchema,
  CopilotPermissionRequestOutputSchema,
  CopilotPreToolUseOutputSchema,
  CopilotStopOutputSchema,
  copilotCamelCaseInput,
  copilotEventName,
} from './copilot.js';
export type { CopilotEvent, CopilotHookInput, CopilotHookOutput, CopilotHooksFile, CopilotHooksFileHandler } from './copilot.js';
// --- the fleet view and the operators' live feed (see fleet.ts) ---
export {
  FLEET_AGENT_STATUSES,
  FLEET_WORKING_WINDOW_MS,
  FleetAgentSchema,
  FleetAgentStatusSchema,
  FleetClientSchema,
  FleetCountsSchema,
  FleetLastDecisionSchema,
  FleetLastRefusalSchema,
  FleetLastHookSchema,
  FleetResponseSchema,
  FleetQuerySchema,
  FleetSortSchema,
  MAX_FLEET_PAGE,
  LiveRequestEventSchema,
  GatewayHealthSchema,
  GatewayHealthSnapshotSchema,
  LATENCY_BUCKET_BOUNDS_MS,
  LatencyPercentilesSchema,
  OperatorHealthResponseSchema,
  OperatorLiveEventSchema,
  OperatorLiveQuerySchema,
  MAX_LIVE_AGENTS,
  WorkerInfoSchema,
  countFleet,
  fleetStatus,
  liveEventFollowed,
  latencyBucket,
  latencyPercentiles,
} from './fleet.js';
export type {
  OperatorLiveQuery,
  FleetAgent,
  FleetAgentStatus,
  FleetClient,
  FleetCounts,
  FleetLastDecision,
  FleetLastRefusal,
  FleetLastHook,
  FleetResponse,
  FleetQuery,
  FleetSort,
  FleetStatusInput,
  GatewayHealth,
  GatewayHealthSnapshot,
  LatencyPercentiles,
  OperatorHealthResponse,
  OperatorLiveEvent,
  OperatorLiveEventKind,
  WorkerInfo,
} from './fleet.js';
// --- tool approvals required by rules, session grants (see tool-approval.ts) ---
export {
  APPROVAL_SIGNAL_TYPES,
  ApprovalRequirementSchema,
  ApprovalScopeSchema,
  GrantListQuerySchema,
  GrantListResponseSchema,
  GrantRevokeResponseSchema,
  HookApprovalRefSchema,
  MAX_GRANT_LIST,
  TOOL_APPROVAL_REQUEST_PREFIX,
  ToolGrantIdSchema,
  ToolGrantSchema,
  approvalRequirementOf,
  approvalRuleOf,
  approvalRulesOf,
  awaitingApproval,
  promptFallbackOf,
  grantCovers,
  openedByRule,
  presentedApproval,
  toolApprovalRequestId,
} from './tool-approval.js';
export type {
  ApprovalRequirement,
  ApprovalScope,
  AwaitingApproval,
  GrantListQuery,
  GrantListResponse,
  GrantRevokeResponse,
  HookApprovalRef,
  ToolGrant,
} from './tool-approval.js';
// --- what loggers do to a line's fields (see log-fields.ts) ---
export { prepareLogFields, redactLogText, serializeError } from './log-fields.js';
// --- the fleet's search, filters, sort and pages (see fleet-query.ts) ---
export { fleetComparator, fleetRowMatches, queryFleet, type FleetFilter, type FleetPage } from './fleet-query.js';
// --- what a decision does, as replay and shadow mode classify it (see decision-outcome.ts) ---
export { DECISION_OUTCOMES, decisionOutcomeOf, isStrongerOutcome, outcomeOfParts, transitionName, type DecisionOutcome } from './decision-outcome.js';
// --- replaying a candidate configuration over recorded hooks (see config-replay.ts) ---
export {
  ConfigReplayIdSchema,
  ConfigReplayJobDataSchema,
  ConfigReplayProgressSchema,
  ConfigReplayReportSchema,
  ConfigReplayRequestSchema,
  ConfigReplayStateSchema,
  ConfigReplayStatusSchema,
  DEFAULT_REPLAY_LIMIT,
  MAX_REPLAY_EXAMPLES,
  MAX_REPLAY_LIMIT,
  REPLAY_LEVELS,
  REPLAY_OUTCOMES,
  ReplayAgentChangeSchema,
  ReplayDecisionSchema,
  ReplayExampleSchema,
  ReplayLevelSchema,
  ReplayOracleErrorSchema,
  ReplayOutcomeSchema,
  ReplayRecordSchema,
  ReplayRuleChangeSchema,
  ReplayTransitionSchema,
  decisionNeedsApproval,
  decisionRulesOf,
  isStrongerLevel,
  replayDecisionOf,
  replayLevelOf,
  replayOutcomeOf,
  type ConfigReplayJobData,
  type ConfigReplayProgress,
  type ConfigReplayReport,
  type ConfigReplayRequest,
  type ConfigReplayState,
  type ConfigReplayStatus,
  type ReplayAgentChange,
  type ReplayDecision,
  type ReplayExample,
  type ReplayLevel,
  type ReplayOracleError,
  type ReplayOutcome,
  type ReplayRecord,
  type ReplayRuleChange,
  type ReplayTransition,
} from './config-replay.js';
export {
  DropShadowResponseSchema,
  MAX_SHADOW_EXAMPLES,
  MAX_SHADOW_RULES,
  PromoteShadowResponseSchema,
  SetShadowResponseSchema,
  ShadowActionBodySchema,
  ShadowExampleSchema,
  ShadowNumberSchema,
  ShadowOutcomeSchema,
  ShadowRuleNameSchema,
  ShadowRuleStatsSchema,
  ShadowStatusResponseSchema,
  StoredShadowConfigSchema,
  shadowOutcomeOf,
} from './config-shadow.js';
export type {
  DropShadowResponse,
  PromoteShadowResponse,
  SetShadowResponse,
  ShadowActionBody,
  ShadowExample,
  ShadowOutcome,
  ShadowRuleStats,
  ShadowStatusResponse,
  StoredShadowConfig,
} from './config-shadow.js';
