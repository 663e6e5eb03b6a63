/**
 * @ahp/protocol: the wire protocol of AHP as zod schemas, inferred types and pure functions.
 * The public API is this list of named exports; import nothing from deeper paths. Three subpaths
 * carry its parts for those who need only one: `@ahp/protocol/wire` (agent ↔ gateway),
 * `@ahp/protocol/operator` (the operators' HTTP API) and `@ahp/protocol/config` (the files an
 * operator writes). The root exports all of them, plus what only the control plane itself uses.
 */
export * from './surface/wire.js';
export * from './surface/operator.js';
export * from './surface/config.js';

// --- the control plane's own: secrets redaction, log fields, queued hook jobs, stored records,
// --- notification jobs, and the foreign hook formats of coding agents (Claude Code, Codex, Copilot)
export { silentLogger, type LogFields, type Logger } from './logger.js';
export { REDACTED, SECRET_KEY_PATTERNS, TRUNCATED, clipText, isRedactionMarker, isSecretKey, redactionMarker, normalizeKeyName, redactFreeText, redactSecrets, redactText, redactTextWithin } from './redact.js';
export type { RedactOptions } from './redact.js';
export {
  NotificationBodySchema,
  NotificationJobDataSchema,
  WaitingRequestSchema,
  NotificationDigestSchema,
  DecisionLinkClaimsSchema,
  DecisionLinkTokenSchema,
  PushPayloadSchema,
  StoredPushSubscriptionSchema,
} from './notifications.js';
export type {
  NotificationBody,
  NotificationJobData,
  NotificationSubject,
  WaitingRequest,
  NotificationDigest,
  DecisionLinkClaims,
  ParsedNotificationJobData,
  NotificationJobInput,
  PushPayload,
  StoredPushSubscription,
  VapidKeyResponse,
} from './notifications.js';
export {
  EpochMsSchema,
  GatewayInfoSchema,
  HookCorrelationSchema,
  HookJobDataSchema,
  HookStatusSchema,
  PresenceEntrySchema,
} from './hook-job.js';
export type { GatewayInfo, HookCorrelation, HookJobData, HookStatus, PresenceEntry } from './hook-job.js';
export { SignalRecordSchema } from './signal-record.js';
export type { SignalRecord } from './signal-record.js';
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
  copilotToolArgs,
} from './copilot.js';
export type { CopilotEvent, CopilotHookInput, CopilotHookOutput, CopilotHooksFile, CopilotHooksFileHandler } from './copilot.js';
export { prepareLogFields, redactLogText, serializeError } from './log-fields.js';
