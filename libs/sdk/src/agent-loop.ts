/**
 * @ahp/sdk/agent-loop — the reference agent loop (`runAgentLoop`) and the agent-side protocols it
 * is built from, each usable alone: plans (docs/spec/plans.md), control envelopes
 * (docs/spec/control-envelope.md), circuit breakers (docs/spec/circuit-breakers.md), verification,
 * history trimming and the tool-call guard the framework adapters use. They drive an
 * {@link AhpClient} from `@ahp/sdk`.
 */
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
