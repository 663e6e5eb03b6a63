/**
 * @ahp/sdk — the AHP agent client. The public API is this list of named exports; import nothing
 * from deeper paths. The wire types (`Signal`, `HookTrigger`, `ConsumptionAction`, …) come from
 * `@ahp/protocol`.
 */

// --- the client ----------------------------------------------------------------------------
export { AhpClient, connect } from './client.js';
export { toHookResult } from './hook-result.js';
export type { ClientOptions } from './client-options.js';
export type { AwaitingApprovalInfo, ClientEvents, GoawayInfo } from './client-events.js';
export type { HookOptions } from './hook-calls.js';
export type { HookBlock, HookResult } from './hook-result.js';
export type { RespondOptions, SignalHandler } from './signal-answers.js';
export type { OpenRequestOptions, RequestInterventionOptions, RequestShutdownOptions, SubmitPlanOptions } from './team-requests.js';
export type { IdleOptions, SendOptions } from './agent-messages.js';
export { toRequestDecision } from './team.js';
export { OPERATORS_REQUEST_SUFFIX } from './plan-approval.js';
export type { PlanApprover } from './plan-approval.js';
export { IDLE_SHUTDOWN_FEEDBACK } from './shutdown-policy.js';
export type { IdleResult, IncomingRequest, RequestAnswer, RequestDecision, RequestHandler } from './team.js';
export type { ConnectionState, SessionInfo, StateChange, TokenSource } from './connection.js';
export { LIVENESS_PROBE_MESSAGE_ID } from './connection.js';

// --- errors --------------------------------------------------------------------------------
export { AhpClientError, CLIENT_ERROR_CODES, isAhpClientError } from './errors.js';
export type { AhpClientErrorCode, AhpClientErrorOptions, ClientErrorCode } from './errors.js';

// --- agent-side protocols (docs/spec/control-envelope.md, plans.md, circuit-breakers.md) -----
export { runAgentLoop } from './run-agent-loop.js';
export type { AgentLoopClient, LoopAnswer, AgentLoopOptions, AgentLoopPhase, AgentLoopResult, AgentModel, AgentTool, ModelAction, ToolOutcome } from './run-agent-loop.js';
export type { PlanningModel } from './planning.js';
export { MAX_PLAN_TEXT_CHARS, MAX_TEMPLATE_STEPS, PLANNING_INSTRUCTIONS, parsePlanTemplate } from './plan-template.js';
export type { ParsePlanTemplateOptions, PlanTemplateResult } from './plan-template.js';
export { scriptedModel } from './scripted-model.js';
export type { ModelScript } from './scripted-model.js';
export { applyModifications } from '@ahp/protocol/wire';
export { readControlSignal } from './control.js';
export type { ReadControlOptions } from './control.js';
export type { EventSink } from './event-sink.js';
export { PlanRunner } from './plan-runner.js';
export type { PlanRunnerOptions } from './plan-runner.js';
export { reportVerification, verificationContext } from './verification.js';
export type { ReportVerificationOptions } from './verification.js';
export { LoopBreakers } from './breakers.js';
export type { LoopLimits, ToolCallCheck } from './breakers.js';
export { estimateTokens, trimHistory } from './history.js';
export type { ChatMessage, TokenCounter, TrimHistoryOptions, TrimmedHistory } from './history.js';
export { canonicalJson, toolCallKey, toolCallSignature } from './tool-signature.js';
export { checkToolCall, reportToolCall } from './tool-guard.js';
export type { CheckToolCallOptions, ToolCallOutcome, ToolCheck, ToolGuardClient } from './tool-guard.js';

// --- building blocks you may configure -----------------------------------------------------
export { Backoff, DEFAULT_BACKOFF, backoffCeiling, backoffDelay, goawayDelay, resolveBackoffOptions } from './backoff.js';
export type { BackoffOptions, ResolvedBackoffOptions } from './backoff.js';
export { silentLogger } from './logger.js';
export type { LogFields, Logger } from './logger.js';
export { resolveTransport, urlWithToken, webSocketTransport } from './transport.js';
export type {
  ResolveTransportOptions,
  Transport,
  TransportCloseInfo,
  TransportConnectOptions,
  TransportFactory,
  TransportHandlers,
  WebSocketConstructor,
  WebSocketEventLike,
  WebSocketLike,
} from './transport.js';
export { SDK_NAME, SDK_VERSION } from './version.js';
