/**
 * `@ahp/protocol/wire`: what an agent and a gateway say to each other on the WebSocket — the
 * frames and their parser, errors and close codes, signals, decisions and answers, hook contexts,
 * requests and inbox messages, plans, verification and control envelopes, and the primitives they
 * are built from. What an SDK needs, and nothing of the operators' API or the configuration files.
 */
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
} from '../primitives.js';
export type { Id, JsonObject, JsonStringLimits, JsonValue, JsonValueIssue, Timestamp } from '../primitives.js';
export {
  HOOK_CONTEXT_STRINGS,
  HookContextObjectSchema,
  ToolTextObjectSchema,
  ToolTextValueSchema,
  fitToolText,
  hookContextStringLimit,
  inspectHookContext,
  isToolTextPath,
} from '../hook-context-limits.js';
export type { FittedContext, ToolTextCut } from '../hook-context-limits.js';
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
} from '../intensity.js';
export type { DecisionLevel, Intensity } from '../intensity.js';
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
} from '../decision.js';
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
} from '../decision.js';
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
} from '../trigger.js';
export type { FailurePolicy, HookTrigger, TriggerInfo, TriggerPhase } from '../trigger.js';
export {
  HOOK_CONTEXT_SCHEMAS,
  HookContextExtraSchema,
  HookContextsSchema,
  HookToolCallSchema,
  HookToolResultSchema,
  parseHookContext,
} from '../hook-context.js';
export type { HookContextParseResult } from '../hook-context.js';
export { hookToolCall } from '../hook-tool-call.js';
export type { HookToolCallView } from '../hook-tool-call.js';
export {
  SIGNAL_TYPES,
  SignalCategorySchema,
  SignalHeaderSchema,
  SignalSchema,
  SignalTypeSchema,
  signalCategory,
} from '../signal.js';
export type { Signal, SignalCategory, SignalHeader, SignalType } from '../signal.js';
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
} from '../signal-response.js';
export type { ConsumptionAction, SignalLogEntry, SignalResponse, SignalResponseCheck } from '../signal-response.js';
export {
  DecidedBySchema,
  HookDecisionErrorSchema,
  HookDecisionSchema,
  aggregateSignals,
  failurePolicyDecision,
  CONTROL_PLANE_SOURCE,
  MODIFICATION_CONFLICT_SIGNAL_TYPE,
} from '../hook-decision.js';
export { mergeModifications, describeSource } from '../modification-merge.js';
export type { MergeItem, MergedModifications, ModificationConflict } from '../modification-merge.js';
export { isPointerTarget, modificationPath, modificationTargetProblem, pathsOverlap, pointerTarget, targetKey } from '../modification-target.js';
export type {
  AggregateSignalsInput,
  DecidedBy,
  FailurePolicyDecisionInput,
  HookDecision,
  HookDecisionError,
} from '../hook-decision.js';
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
} from '../control-envelope.js';
export type {
  ClassifyControlOptions,
  ControlClassification,
  ControlEnvelope,
  ControlFormat,
  ControlKind,
  ControlReadMode,
  ControlSignalEvent,
} from '../control-envelope.js';
export { PlanSchema, PlanStepSchema, PlanStepStatusSchema, findDependencyCycle, readySteps } from '../plan.js';
export { mustAnswer } from '../signal-answer.js';
export type { Plan, PlanStep, PlanStepStatus } from '../plan.js';
export { VerificationDetailSchema, VerificationResultSchema, VerificationTypeSchema } from '../verification.js';
export type { VerificationDetail, VerificationResult, VerificationType } from '../verification.js';
export {
  CIRCUIT_BREAKER_CODES,
  CircuitBreakerCodeSchema,
  CircuitBreakerLimitsSchema,
  DEFAULT_CIRCUIT_BREAKER_LIMITS,
  StopReasonSchema,
  exceedsIterations,
  isStuttering,
} from '../circuit-breaker.js';
export type { CircuitBreakerCode, CircuitBreakerLimits, StopReason } from '../circuit-breaker.js';
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
} from '../request.js';
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
} from '../request.js';
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
} from '../inbox.js';
export type { InboxMessage, InboxMessageType, InboxMetadata } from '../inbox.js';
export {
  AgentIdentitySchema,
  AgentRoleSchema,
} from '../agent.js';
export type {
  AgentIdentity,
  AgentRole,
} from '../agent.js';
export { FRAME_CAPTURED_KEYS, FRAME_SHAPE_LIMITS, measureJsonShape } from '../json-shape-limits.js';
export { ModificationError, applyModifications, matchesOriginal } from '../modifications.js';
export { parseOnce } from '../parse-once.js';
export type { CapturedKeys, JsonShape, JsonShapeLimits, JsonShapeViolation } from '../json-shape-limits.js';
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
} from '../errors.js';
export type { AhpError, CloseCode, CloseCodeName, ErrorCode, ErrorCodeInfo, MakeErrorOptions } from '../errors.js';
// --- schema issues as errors report them (`details.issues`) and messages summarise them ---
export { MAX_REPORTED_ISSUES, describeIssues, formatPath, issueDetails, reportIssues } from '../issues.js';
export type { ReportOptions, ReportedIssue, SchemaIssue } from '../issues.js';
export { FRAME_LIMITS, FrameIdSchema, PROTOCOL_VERSION, SeqSchema, SUPPORTED_PROTOCOL_VERSIONS } from '../frame-primitives.js';
export { AgentEventSchema, CancelFrameSchema, ClientFrameSchema, EventFrameSchema, HelloFrameSchema, HookFrameSchema, InboxAckFrameSchema, OpenRequestSchema, OutgoingMessageSchema, RequestFrameSchema, ResponseFrameSchema, SendableMessageTypeSchema, SendFrameSchema, SignalResponseFrameSchema, TeamActivityEventSchema } from '../client-frames.js';
export type { AgentEvent, CancelFrame, ClientFrame, ClientFrameInput, ClientFrameType, EventFrame, HelloFrame, HookFrame, InboxAckFrame, OpenRequest, OutgoingMessage, RequestFrame, ResponseFrame, SendableMessageType, SendFrame, SignalResponseFrame, TeamActivityEvent } from '../client-frames.js';
export { AckFrameSchema, AckResultSchema, ConnectionLimitsSchema, DecisionFrameSchema, ErrorFrameSchema, GoawayFrameSchema, InboxPushFrameSchema, RequestUpdateFrameSchema, ServerFrameSchema, SignalPushFrameSchema, WelcomeAgentSchema, WelcomeFrameSchema } from '../server-frames.js';
export type { AckFrame, AckResult, ConnectionLimits, DecisionFrame, ErrorFrame, GoawayFrame, InboxPushFrame, RequestUpdateFrame, ServerFrame, ServerFrameInput, ServerFrameType, SignalPushFrame, WelcomeAgent, WelcomeFrame } from '../server-frames.js';
export { assertNever, CLIENT_FRAME_TYPES, FRAME_KINDS, isClientFrameType, isReplyFrame, isServerFrameType, REPLY_TYPE_FOR, SERVER_FRAME_TYPES } from '../frame-types.js';
export type { Frame, FrameKind, FrameType, PushFrame, ReplyFrame } from '../frame-types.js';
export { parseClientFrame, parseServerFrame, utf8ByteLength } from '../frames.js';
export type { FrameIssue, FrameParseResult } from '../frames.js';
export {
  APPROVAL_SIGNAL_TYPES,
  ApprovalRequirementSchema,
  ApprovalScopeSchema,
  HookApprovalRefSchema,
  TOOL_APPROVAL_REQUEST_PREFIX,
  approvalRequirementOf,
  approvalRuleOf,
  approvalRulesOf,
  awaitingApproval,
  promptFallbackOf,
  openedByRule,
  presentedApproval,
  toolApprovalRequestId,
} from '../tool-approval.js';
export type {
  ApprovalRequirement,
  ApprovalScope,
  AwaitingApproval,
  HookApprovalRef,
} from '../tool-approval.js';
