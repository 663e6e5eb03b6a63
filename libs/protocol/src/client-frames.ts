/**
 * The frames a client sends: each is a request with a client-chosen `id` and gets exactly one
 * reply (see `frame-types.ts` for the reply each gets). Strict objects: an unknown key is an error.
 */
import { z } from 'zod';
import { ControlSignalEventSchema } from './control-envelope.js';
import { FRAME_LIMITS, FrameIdSchema } from './frame-primitives.js';
import { InboxMessageTypeSchema, InboxMetadataSchema } from './inbox.js';
import { PlanSchema } from './plan.js';
import { HookContextObjectSchema } from './hook-context-limits.js';
import { IdSchema, LongTextSchema, ShortStringSchema, TextSchema, UuidSchema, boundedArray } from './primitives.js';
import {
  PlanApprovalPayloadSchema,
  ProtocolResponseSchema,
  RequestIdSchema,
  RequestTargetSchema,
  ShutdownRequestPayloadSchema,
  InterventionPayloadSchema,
  ToolApprovalPayloadSchema,
} from './request.js';
import { SignalResponseSchema } from './signal-response.js';
import { HookTriggerSchema } from './trigger.js';
import { VerificationResultSchema } from './verification.js';

/**
 * First frame of every connection. `session_id` + `last_seq` ask to resume an earlier session:
 * the gateway then re-delivers the pushes it still holds after `last_seq`, and answers re-sent
 * hooks with their first decision. Authentication is NOT here: it happened at the HTTP upgrade.
 */
export const HelloFrameSchema = z
  .strictObject({
    type: z.literal('hello'),
    id: FrameIdSchema,
    protocol: z.int().min(1).max(65_535),
    client: z.strictObject({ name: ShortStringSchema, version: ShortStringSchema }),
    session_id: IdSchema.optional(),
    last_seq: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .superRefine((frame, ctx) => {
    if (frame.last_seq !== undefined && frame.session_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['last_seq'], message: 'last_seq only makes sense with the session_id it belongs to' });
    }
  })
  .meta({ id: 'HelloFrame', description: 'Client → server, first frame: protocol version, client name, optional resume.' });
export type HelloFrame = z.infer<typeof HelloFrameSchema>;

/**
 * Ask what to do at a hook point. `id` is the hook id, a UUID the client mints once per hook and
 * keeps across re-sends: it is the idempotency key, so a hook re-sent (after a reconnect, to any
 * gateway) gets the decision of the first evaluation instead of a second one. `session_id` names
 * the agent run when one connection multiplexes several (a CLI bridge); it defaults to the
 * connection's session. `deadline_ms` shortens or extends the gateway's default evaluation
 * deadline, after which the hook's failure policy decides.
 */
export const HookFrameSchema = z
  .strictObject({
    type: z.literal('hook'),
    id: UuidSchema,
    trigger: HookTriggerSchema,
    session_id: IdSchema.optional(),
    context: HookContextObjectSchema,
    deadline_ms: z.int().min(1).max(FRAME_LIMITS.maxHookDeadlineMs).optional(),
  })
  .meta({ id: 'HookFrame', description: 'Client → server: evaluate a hook point; the id (UUID) is the idempotency key.' });
export type HookFrame = z.infer<typeof HookFrameSchema>;

/**
 * The agent's answer to one signal it consumed. The gateway checks the action against the
 * signal's intensity (`E_INVALID_ACTION`) and that the signal was sent to this agent
 * (`E_NOT_FOUND`). A repeat of the same answer is acknowledged again.
 */
export const SignalResponseFrameSchema = z
  .strictObject({
    type: z.literal('signal_response'),
    id: FrameIdSchema,
    response: SignalResponseSchema,
  })
  .meta({ id: 'SignalResponseFrame', description: 'Client → server: how the agent consumed a signal.' });
export type SignalResponseFrame = z.infer<typeof SignalResponseFrameSchema>;

const openRequestFields = {
  request_id: RequestIdSchema,
  target: RequestTargetSchema,
  deadline_ms: z.int().min(1).max(FRAME_LIMITS.maxRequestDeadlineMs).optional(),
};

/**
 * A request to open, as the sender words it: the `type` selects the payload schema, exactly as
 * in `ProtocolState`. The sender picks `request_id`, so re-sending after a reconnect is safe: a
 * request id that already exists with the same type and target is answered with its current state.
 */
export const OpenRequestSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ ...openRequestFields, type: z.literal('shutdown'), payload: ShutdownRequestPayloadSchema }),
    z.strictObject({ ...openRequestFields, type: z.literal('plan_approval'), payload: PlanApprovalPayloadSchema }),
    z.strictObject({ ...openRequestFields, type: z.literal('tool_approval'), payload: ToolApprovalPayloadSchema }),
    z.strictObject({ ...openRequestFields, type: z.literal('intervention'), payload: InterventionPayloadSchema }),
  ])
  .meta({ id: 'OpenRequest', description: 'A request to open: id, type, target, matching payload, optional deadline.' });
export type OpenRequest = z.infer<typeof OpenRequestSchema>;

/**
 * Open a request that someone else decides (a lead, a teammate, an operator). The reply is an
 * `ack` with the pending state; the decision arrives later as a `request_update` push. While a
 * `plan_approval` from this agent is pending, its `pre-tool-use` hooks fail with `E_PLAN_PENDING`.
 */
export const RequestFrameSchema = z
  .strictObject({
    type: z.literal('request'),
    id: FrameIdSchema,
    request: OpenRequestSchema,
  })
  .meta({ id: 'RequestFrame', description: 'Client → server: open a request (shutdown, plan approval, tool approval).' });
export type RequestFrame = z.infer<typeof RequestFrameSchema>;

/**
 * Answer a request addressed to this agent. First decision wins: the same answer again is
 * acknowledged (idempotent), a contrary one fails with `E_CONFLICT`, a response of the wrong type
 * with `E_TYPE_MISMATCH`.
 */
export const ResponseFrameSchema = z
  .strictObject({
    type: z.literal('response'),
    id: FrameIdSchema,
    response: ProtocolResponseSchema,
  })
  .meta({ id: 'ResponseFrame', description: 'Client → server: approve or reject a request addressed to this agent.' });
export type ResponseFrame = z.infer<typeof ResponseFrameSchema>;

/**
 * Withdraw a pending request this agent opened (docs/spec/teams.md#request-state-machine: → cancelled by its sender). The reply is
 * an `ack` with the cancelled state; the addressee learns it through a `request_update`. Only the
 * sender may cancel (`E_FORBIDDEN`); a request already settled is `E_CONFLICT` with its state,
 * except one this agent already cancelled, which is acknowledged again (re-sending is safe).
 */
export const CancelFrameSchema = z
  .strictObject({
    type: z.literal('cancel'),
    id: FrameIdSchema,
    request_id: RequestIdSchema,
  })
  .meta({ id: 'CancelFrame', description: 'Client → server: withdraw a pending request this agent opened.' });
export type CancelFrame = z.infer<typeof CancelFrameSchema>;

/**
 * The message types a client may send with `send`. Protocol traffic (`*_request`, `*_response`)
 * goes through `request` and `response` frames instead, which keep the request state machine
 * consistent; the gateway writes the matching inbox messages itself.
 */
export const SendableMessageTypeSchema = InboxMessageTypeSchema.extract(['message', 'idle_notification']).meta({
  id: 'SendableMessageType',
  description: 'message | idle_notification; protocol messages go through request/response frames.',
});
export type SendableMessageType = z.infer<typeof SendableMessageTypeSchema>;

/** The part of an inbox message the sender supplies; the gateway adds `id`, `from` and `sent_at`. */
export const OutgoingMessageSchema = z
  .strictObject({
    to: IdSchema,
    content: LongTextSchema,
    type: SendableMessageTypeSchema,
    metadata: InboxMetadataSchema.optional(),
  })
  .meta({ id: 'OutgoingMessage', description: 'A message to a teammate: recipient agent id, content, type, metadata.' });
export type OutgoingMessage = z.infer<typeof OutgoingMessageSchema>;

/** Put a message in a teammate's durable inbox. The `ack` returns the stored message. */
export const SendFrameSchema = z
  .strictObject({
    type: z.literal('send'),
    id: FrameIdSchema,
    message: OutgoingMessageSchema,
  })
  .meta({ id: 'SendFrame', description: "Client → server: deliver a message to a teammate's inbox." });
export type SendFrame = z.infer<typeof SendFrameSchema>;

/**
 * Remove processed messages from this agent's inbox. Inbox delivery is at-least-once: a message
 * not acknowledged is delivered again after a reconnect. Unknown or already removed ids are
 * ignored, so acknowledging twice is harmless.
 */
export const InboxAckFrameSchema = z
  .strictObject({
    type: z.literal('inbox_ack'),
    id: FrameIdSchema,
    message_ids: boundedArray(IdSchema).min(1),
  })
  .meta({ id: 'InboxAckFrame', description: 'Client → server: remove processed inbox messages.' });
export type InboxAckFrame = z.infer<typeof InboxAckFrameSchema>;

/**
 * An observability event the agent reports, discriminated on `kind`:
 * - `control_signal`: the agent acted on a control envelope (docs/spec/control-envelope.md).
 * - `plan_progress`: the current plan with its step statuses; `step_id` names the step that changed.
 * - `verification`: the result of a verification run, optionally for one step.
 * - `team_activity`: what a coding agent's team did (Claude Code agent teams: a teammate going
 *   idle, a task created or completed), recorded by the gateway from the hook; `held` is the
 *   reason when AHP's answer kept the teammate working (docs/claude-code.md, "Agent teams").
 */
export const TeamActivityEventSchema = z
  .strictObject({
    kind: z.literal('team_activity'),
    activity: z.enum(['teammate_idle', 'task_created', 'task_completed']),
    team_name: ShortStringSchema.optional(),
    teammate_name: ShortStringSchema.optional(),
    task: z.strictObject({ id: ShortStringSchema, subject: TextSchema.optional() }).optional(),
    held: TextSchema.optional(),
  })
  .meta({ id: 'TeamActivityEvent', description: "A coding agent team's activity: teammate_idle, task_created, task_completed." });
export type TeamActivityEvent = z.infer<typeof TeamActivityEventSchema>;

export const AgentEventSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('control_signal'), control_signal: ControlSignalEventSchema }),
    z.strictObject({
      kind: z.literal('plan_progress'),
      plan: PlanSchema,
      step_id: IdSchema.optional(),
      request_id: RequestIdSchema.optional(),
    }),
    z.strictObject({ kind: z.literal('verification'), result: VerificationResultSchema, step_id: IdSchema.optional() }),
    TeamActivityEventSchema,
  ])
  .meta({ id: 'AgentEvent', description: 'An observability event: control_signal, plan_progress, verification or team_activity.' });
export type AgentEvent = z.infer<typeof AgentEventSchema>;

/** Report an observability event (for the console timeline and statistics); acknowledged with an `ack`. */
export const EventFrameSchema = z
  .strictObject({
    type: z.literal('event'),
    id: FrameIdSchema,
    event: AgentEventSchema,
  })
  .meta({ id: 'EventFrame', description: 'Client → server: an observability event.' });
export type EventFrame = z.infer<typeof EventFrameSchema>;

/** Every frame a client may send. Each is a request with an `id` and gets exactly one reply. */
export const ClientFrameSchema = z
  .discriminatedUnion('type', [
    HelloFrameSchema,
    HookFrameSchema,
    SignalResponseFrameSchema,
    RequestFrameSchema,
    ResponseFrameSchema,
    CancelFrameSchema,
    SendFrameSchema,
    InboxAckFrameSchema,
    EventFrameSchema,
  ])
  .meta({ id: 'ClientFrame', description: 'Any frame a client sends to the gateway.' });
/** A client frame after parsing (defaults applied). */
export type ClientFrame = z.infer<typeof ClientFrameSchema>;
/** A client frame as it may be written before parsing (defaults still optional). */
export type ClientFrameInput = z.input<typeof ClientFrameSchema>;
/** The `type` of a client frame. */
export type ClientFrameType = ClientFrame['type'];
