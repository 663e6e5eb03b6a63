/**
 * The frames a gateway sends: replies, which carry the `id` of the request they answer (the
 * request's result frame or an `error`, never both), and pushes nobody asked for on this
 * connection, the replayable ones with a per-session `seq`. Strict objects, as client frames.
 */
import { z } from 'zod';
import { AgentIdentitySchema } from './agent.js';
import { AhpErrorSchema } from './errors.js';
import { FRAME_LIMITS, FrameIdSchema, SeqSchema } from './frame-primitives.js';
import { HookDecisionSchema } from './hook-decision.js';
import { InboxMessageSchema } from './inbox.js';
import { IdSchema, TextSchema, UuidSchema } from './primitives.js';
import { ProtocolStateSchema } from './request.js';
import { SignalSchema } from './signal.js';

/**
 * Limits the gateway enforces on this connection, announced so a client can check before sending
 * instead of learning from errors.
 */
export const ConnectionLimitsSchema = z
  .strictObject({
    /** Largest frame the gateway accepts, in UTF-8 bytes. */
    max_frame_bytes: z.int().min(1024),
    /** Requests the client may have awaiting a reply at once; more fail with `E_RATE_LIMITED`. */
    max_in_flight: z.int().min(1),
    /** Evaluation deadline of a hook frame without `deadline_ms`. */
    hook_deadline_ms: z.int().min(1).max(FRAME_LIMITS.maxHookDeadlineMs),
    /** Largest accepted `hook.deadline_ms`. */
    max_hook_deadline_ms: z.int().min(1).max(FRAME_LIMITS.maxHookDeadlineMs),
  })
  .meta({ id: 'ConnectionLimits', description: 'Limits the gateway enforces on this connection.' });
export type ConnectionLimits = z.infer<typeof ConnectionLimitsSchema>;

/**
 * Reply to `hello`. `session_id` is the session this connection serves: the requested one when
 * `resumed` is true, a new one otherwise (the old session expired or was never known — pushes
 * after `last_seq` are then lost, and pending hooks must be re-sent). `agent` is who the token
 * says the client is. `heartbeat_ms` is the WebSocket ping interval; a peer silent for twice as
 * long is closed with `HEARTBEAT_TIMEOUT`.
 */
/**
 * The welcome's `agent`: the identity from the token, plus `lead` — the agent id of the team's lead
 * when the tokens file gives the agent's team exactly one unrevoked agent with role `lead` (the
 * lead itself included), so a teammate knows whom to address without being told out of band.
 */
export const WelcomeAgentSchema = AgentIdentitySchema.extend({ lead: IdSchema.optional() }).meta({
  id: 'WelcomeAgent',
  description: "The connection's agent (from its token) and, when its team has exactly one lead, that lead's agent id.",
});
export type WelcomeAgent = z.infer<typeof WelcomeAgentSchema>;

export const WelcomeFrameSchema = z
  .strictObject({
    type: z.literal('welcome'),
    id: FrameIdSchema,
    protocol: z.int().min(1).max(65_535),
    session_id: IdSchema,
    resumed: z.boolean(),
    agent: WelcomeAgentSchema,
    gateway_id: IdSchema,
    heartbeat_ms: z.int().min(1000).max(10 * 60 * 1000),
    limits: ConnectionLimitsSchema,
  })
  .meta({ id: 'WelcomeFrame', description: 'Server → client, reply to hello: session, identity, heartbeat, limits.' });
export type WelcomeFrame = z.infer<typeof WelcomeFrameSchema>;

/** Reply to `hook`: the aggregated decision. `id` is the hook id and equals `decision.hook_id`. */
export const DecisionFrameSchema = z
  .strictObject({
    type: z.literal('decision'),
    id: UuidSchema,
    decision: HookDecisionSchema,
  })
  .superRefine((frame, ctx) => {
    if (frame.decision.hook_id !== frame.id) {
      ctx.addIssue({ code: 'custom', path: ['decision', 'hook_id'], message: 'must equal the frame id (the hook id)' });
    }
  })
  .meta({ id: 'DecisionFrame', description: 'Server → client, reply to hook: the hook decision.' });
export type DecisionFrame = z.infer<typeof DecisionFrameSchema>;

/**
 * The result an `ack` carries, discriminated on `kind`:
 * - `request`: reply to `request` and `response` frames — the request's state after the
 *   operation (pending for a newly opened one, decided for an answer).
 * - `message`: reply to `send` — the message as stored in the recipient's inbox.
 * `signal_response`, `inbox_ack` and `event` are acknowledged without a result.
 */
export const AckResultSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('request'), request: ProtocolStateSchema }),
    z.strictObject({ kind: z.literal('message'), message: InboxMessageSchema }),
  ])
  .meta({ id: 'AckResult', description: 'What an ack returns: a request state or a stored inbox message.' });
export type AckResult = z.infer<typeof AckResultSchema>;

/** Reply to every request except `hello` and `hook`: it succeeded; see {@link AckResultSchema}. */
export const AckFrameSchema = z
  .strictObject({
    type: z.literal('ack'),
    id: FrameIdSchema,
    result: AckResultSchema.optional(),
  })
  .meta({ id: 'AckFrame', description: 'Server → client: the request succeeded, with an optional typed result.' });
export type AckFrame = z.infer<typeof AckFrameSchema>;

/**
 * The request failed (or the frame could not be read). `id` is the request's id, or `null` when
 * the gateway could not find a valid id in the offending frame — a client cannot match such an
 * error to a request and should log it.
 */
export const ErrorFrameSchema = z
  .strictObject({
    type: z.literal('error'),
    id: FrameIdSchema.nullable(),
    error: AhpErrorSchema,
  })
  .meta({ id: 'ErrorFrame', description: 'Server → client: the request with this id failed (id null: unknown request).' });
export type ErrorFrame = z.infer<typeof ErrorFrameSchema>;
// --- server pushes -----------------------------------------------------------------------------

/** A signal delivered outside a hook decision (e.g. an `aid` after the fact, or from an operator). */
export const SignalPushFrameSchema = z
  .strictObject({
    type: z.literal('signal'),
    seq: SeqSchema,
    signal: SignalSchema,
  })
  .meta({ id: 'SignalPushFrame', description: 'Server → client push: a signal to consume and answer.' });
export type SignalPushFrame = z.infer<typeof SignalPushFrameSchema>;

/**
 * The state of a request this agent sent or must decide changed: it was opened for this agent, it
 * was decided (with feedback and, for tool approvals, a possibly modified input), it expired or
 * was cancelled. The full state each time, so the latest push is all a client needs.
 */
export const RequestUpdateFrameSchema = z
  .strictObject({
    type: z.literal('request_update'),
    seq: SeqSchema,
    request: ProtocolStateSchema,
  })
  .meta({ id: 'RequestUpdateFrame', description: 'Server → client push: the new state of a request.' });
export type RequestUpdateFrame = z.infer<typeof RequestUpdateFrameSchema>;

/** A message arrived in this agent's inbox. Delivered until acknowledged with `inbox_ack`. */
export const InboxPushFrameSchema = z
  .strictObject({
    type: z.literal('inbox'),
    seq: SeqSchema,
    message: InboxMessageSchema,
  })
  .meta({ id: 'InboxPushFrame', description: 'Server → client push: a message from the inbox.' });
export type InboxPushFrame = z.infer<typeof InboxPushFrameSchema>;

/**
 * The gateway is about to close this connection on purpose (shutdown, drain, rebalancing). The
 * client should stop sending new requests, wait `reconnect_after_ms` (plus jitter) and reconnect —
 * the load balancer sends it to another instance — resuming its session. Replies to requests
 * already sent may still arrive before the close; those that do not are answered after resume.
 */
export const GoawayFrameSchema = z
  .strictObject({
    type: z.literal('goaway'),
    reason: TextSchema.min(1),
    reconnect_after_ms: z.int().min(0).max(10 * 60 * 1000),
  })
  .meta({ id: 'GoawayFrame', description: 'Server → client push: this connection is closing soon; reconnect elsewhere.' });
export type GoawayFrame = z.infer<typeof GoawayFrameSchema>;

/** Every frame a gateway may send: replies (with the request's `id`) and pushes. */
export const ServerFrameSchema = z
  .discriminatedUnion('type', [
    WelcomeFrameSchema,
    DecisionFrameSchema,
    AckFrameSchema,
    ErrorFrameSchema,
    SignalPushFrameSchema,
    RequestUpdateFrameSchema,
    InboxPushFrameSchema,
    GoawayFrameSchema,
  ])
  .meta({ id: 'ServerFrame', description: 'Any frame the gateway sends to a client.' });
/** A server frame after parsing (defaults applied). */
export type ServerFrame = z.infer<typeof ServerFrameSchema>;
/** A server frame as it may be written before parsing (defaults still optional). */
export type ServerFrameInput = z.input<typeof ServerFrameSchema>;
/** The `type` of a server frame. */
export type ServerFrameType = ServerFrame['type'];
