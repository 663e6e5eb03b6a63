/**
 * @ahp/sdk — the AHP agent client: {@link connect}, the {@link AhpClient} it returns, the types of
 * its options, results and events, and its errors. The public API is this list of named exports
 * and those of the subpaths; import nothing from deeper paths:
 * - `@ahp/sdk/agent-loop`: the reference agent loop and the agent-side protocols it is built from
 *   (plans, control envelopes, circuit breakers, verification, tool-call guards);
 * - `@ahp/sdk/transport`: the WebSocket transports, to wrap or replace (`ClientOptions.transport`);
 * - `@ahp/sdk/node`: what needs Node (running a tool with a timeout).
 * The wire types (`Signal`, `HookTrigger`, `ConsumptionAction`, …) come from `@ahp/protocol/wire`.
 */

// --- the client ----------------------------------------------------------------------------
export { AhpClient, connect } from './client.js';
export type { ClientOptions } from './client-options.js';
export type { AwaitingApprovalInfo, ClientEvents, GoawayInfo } from './client-events.js';
export type { HookOptions } from './hook-calls.js';
export type { HookBlock, HookResult } from './hook-result.js';
export type { RespondOptions, SignalHandler } from './signal-answers.js';
export type { OpenRequestOptions, RequestInterventionOptions, RequestShutdownOptions, SubmitPlanOptions } from './team-requests.js';
export type { IdleOptions, SendOptions } from './agent-messages.js';
export { OPERATORS_REQUEST_SUFFIX } from './plan-approval.js';
export type { PlanApprover } from './plan-approval.js';
export { IDLE_SHUTDOWN_FEEDBACK } from './shutdown-policy.js';
export type { IdleResult, IncomingRequest, RequestAnswer, RequestDecision, RequestHandler } from './team.js';
export type { ConnectionState, SessionInfo, StateChange, TokenSource } from './connection.js';

// --- what the options take -------------------------------------------------------------------
export type { BackoffOptions } from './backoff.js';
export { silentLogger } from './logger.js';
export type { LogFields, Logger } from './logger.js';
export type { TransportFactory, WebSocketConstructor } from './transport.js';
export { SDK_NAME, SDK_VERSION } from './version.js';

// --- errors --------------------------------------------------------------------------------
export { AhpClientError, CLIENT_ERROR_CODES, isAhpClientError } from './errors.js';
export type { AhpClientErrorCode, AhpClientErrorOptions, ClientErrorCode } from './errors.js';
