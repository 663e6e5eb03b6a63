/**
 * The WebSocket frames of AHP: one JSON object per text message, discriminated on `type`.
 *
 * Three kinds of frames (the kind is fixed by the type, see {@link FRAME_KINDS}):
 * - client requests: every frame a client sends. Each carries a client-chosen `id` and gets exactly
 *   one reply.
 * - server replies: carry the `id` of the request they answer. The reply is the request's result
 *   frame (`welcome` for `hello`, `decision` for `hook`, `ack` for the rest, see
 *   {@link REPLY_TYPE_FOR}) or an `error` — never both, never two.
 * - server pushes: things the client did not ask for on this connection (signals, request updates,
 *   inbox messages, `goaway`). The replayable ones carry a per-session `seq`.
 *
 * Every frame and every object inside it is strict: unknown keys are an error. A peer therefore
 * learns about a typo at once, and any added field is a protocol version bump
 * ({@link PROTOCOL_VERSION}). `docs/protocol.md` describes the conversation; a test parses every
 * example in it with these schemas.
 */
import { z } from 'zod';
import { AgentIdentitySchema } from './agent.js';
import { ControlSignalEventSchema } from './control-envelope.js';
import { AhpErrorSchema, makeError } from './errors.js';
import type { AhpError } from './errors.js';
import { HookDecisionSchema } from './hook-decision.js';
import { formatPath, oneLine, reportIssues } from './issues.js';
import { InboxMessageSchema, InboxMessageTypeSchema, InboxMetadataSchema } from './inbox.js';
import { FRAME_SHAPE_LIMITS, measureJsonShape, type JsonShape } from './json-shape-limits.js';
import { PlanSchema } from './plan.js';
import {
  FORBIDDEN_KEYS,
  IdSchema,
  JsonObjectSchema,
  LongTextSchema,
  ShortStringSchema,
  TextSchema,
  UuidSchema,
  boundedArray,
} from './primitives.js';
import type { JsonObject } from './primitives.js';
import {
  PlanApprovalPayloadSchema,
  ProtocolResponseSchema,
  ProtocolStateSchema,
  RequestIdSchema,
  RequestTargetSchema,
  ShutdownRequestPayloadSchema,
  InterventionPayloadSchema,
  ToolApprovalPayloadSchema,
} from './request.js';
import { SignalResponseSchema } from './signal-response.js';
import { SignalSchema } from './signal.js';
import { HookTriggerSchema } from './trigger.js';
import { VerificationResultSchema } from './verification.js';

// --- versions and limits -----------------------------------------------------------------------

/**
 * The protocol version this library speaks. A client names it in `hello.protocol`; the gateway
 * answers with the version it will use in `welcome.protocol` or refuses with
 * `E_UNSUPPORTED_VERSION`. Because every object is strict, ANY change to a frame — even an added
 * optional field — is a new version.
 */
export const PROTOCOL_VERSION = 1;

/** The versions a gateway built from this library accepts in `hello.protocol`. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = Object.freeze([PROTOCOL_VERSION]);

/** Bounds of the frame layer itself; message-level bounds live in `LIMITS`. */
export const FRAME_LIMITS = {
  /** Default for `welcome.limits.max_frame_bytes` and {@link parseClientFrame}: 1 MiB of UTF-8. */
  defaultMaxFrameBytes: 1024 * 1024,
  /** Longest `hook.deadline_ms` a client may ask for: 15 minutes. */
  maxHookDeadlineMs: 15 * 60 * 1000,
  /** Longest `request.deadline_ms`: 7 days (a person may take a weekend to approve a plan). */
  maxRequestDeadlineMs: 7 * 24 * 60 * 60 * 1000,
  /** Issues listed in `details.issues` of an `E_INVALID_FRAME` error. */
  maxReportedIssues: 10,
} as const;

/** A client-chosen request id: any `Id` (1–128 of `A-Za-z0-9._:-`). Unique among the client's pending requests. */
export const FrameIdSchema = IdSchema.meta({
  id: 'FrameId',
  description: 'Client-chosen request id (1-128 characters of A-Za-z0-9._:-); the reply carries it back.',
});

/**
 * A push sequence number: per session, strictly increasing, starting at 1, never reused — also
 * not across reconnects of the same session. `hello.last_seq` sends back the highest one the client
 * has processed.
 */
export const SeqSchema = z.int().min(1).max(Number.MAX_SAFE_INTEGER).meta({
  id: 'Seq',
  description: 'Per-session push sequence number, strictly increasing from 1.',
});

// --- client requests ---------------------------------------------------------------------------

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
    context: JsonObjectSchema,
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

// --- server replies ----------------------------------------------------------------------------

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

/** Any frame, either direction. */
export type Frame = ClientFrame | ServerFrame;
/** Any frame type; client and server types never overlap. */
export type FrameType = Frame['type'];

// --- tables over the frame types ---------------------------------------------------------------

const CLIENT_SCHEMAS = {
  hello: HelloFrameSchema,
  hook: HookFrameSchema,
  signal_response: SignalResponseFrameSchema,
  request: RequestFrameSchema,
  response: ResponseFrameSchema,
  cancel: CancelFrameSchema,
  send: SendFrameSchema,
  inbox_ack: InboxAckFrameSchema,
  event: EventFrameSchema,
} as const satisfies { [T in ClientFrameType]: z.ZodType<Extract<ClientFrame, { type: T }>> };

const SERVER_SCHEMAS = {
  welcome: WelcomeFrameSchema,
  decision: DecisionFrameSchema,
  ack: AckFrameSchema,
  error: ErrorFrameSchema,
  signal: SignalPushFrameSchema,
  request_update: RequestUpdateFrameSchema,
  inbox: InboxPushFrameSchema,
  goaway: GoawayFrameSchema,
} as const satisfies { [T in ServerFrameType]: z.ZodType<Extract<ServerFrame, { type: T }>> };

/** The frame types a client may send, in documentation order. */
export const CLIENT_FRAME_TYPES = Object.freeze(Object.keys(CLIENT_SCHEMAS) as ClientFrameType[]);
/** The frame types a gateway may send, in documentation order (replies first, then pushes). */
export const SERVER_FRAME_TYPES = Object.freeze(Object.keys(SERVER_SCHEMAS) as ServerFrameType[]);

/** The kind of a frame: `request` (client → server), `reply` (answers one request) or `push`. */
export type FrameKind = 'request' | 'reply' | 'push';

/** The kind of every frame type; switches over frames branch on it (e.g. replies settle a pending request). */
export const FRAME_KINDS: Readonly<Record<FrameType, FrameKind>> = Object.freeze({
  hello: 'request',
  hook: 'request',
  signal_response: 'request',
  request: 'request',
  response: 'request',
  cancel: 'request',
  send: 'request',
  inbox_ack: 'request',
  event: 'request',
  welcome: 'reply',
  decision: 'reply',
  ack: 'reply',
  error: 'reply',
  signal: 'push',
  request_update: 'push',
  inbox: 'push',
  goaway: 'push',
});

/** A server frame that answers a request. */
export type ReplyFrame = Extract<ServerFrame, { type: 'welcome' | 'decision' | 'ack' | 'error' }>;
/** A server frame nobody asked for. */
export type PushFrame = Exclude<ServerFrame, ReplyFrame>;

/**
 * The success reply each request type gets; the alternative is always `error`. An SDK uses it to
 * check that a reply fits the request it settles.
 */
export const REPLY_TYPE_FOR: Readonly<Record<ClientFrameType, 'welcome' | 'decision' | 'ack'>> = Object.freeze({
  hello: 'welcome',
  hook: 'decision',
  signal_response: 'ack',
  request: 'ack',
  response: 'ack',
  cancel: 'ack',
  send: 'ack',
  inbox_ack: 'ack',
  event: 'ack',
});

/** Whether `frame` is a reply (it settles the pending request with the same `id`). */
export function isReplyFrame(frame: ServerFrame): frame is ReplyFrame {
  return FRAME_KINDS[frame.type] === 'reply';
}

/** Whether `value` is a client frame type (useful before trusting a `type` string). */
export function isClientFrameType(value: unknown): value is ClientFrameType {
  return typeof value === 'string' && Object.hasOwn(CLIENT_SCHEMAS, value);
}

/** Whether `value` is a server frame type. */
export function isServerFrameType(value: unknown): value is ServerFrameType {
  return typeof value === 'string' && Object.hasOwn(SERVER_SCHEMAS, value);
}

/**
 * Marks a branch the type checker proves unreachable, e.g. the `default` of a switch over
 * `frame.type`: adding a frame type then fails to compile at every switch that forgot it. At
 * run time (a peer with a newer protocol, a cast) it throws, naming the value.
 */
export function assertNever(value: never, what = 'value'): never {
  let shown: string;
  try {
    shown = JSON.stringify(value) ?? String(value);
  } catch {
    shown = String(value);
  }
  throw new Error(`unexpected ${what}: ${shown.slice(0, 200)}`);
}

// --- parsing -----------------------------------------------------------------------------------

/** One schema problem of a rejected frame, as listed in `E_INVALID_FRAME` details. */
export interface FrameIssue {
  /** Where, as a readable path: `request.payload.plan.steps[0].id`; empty for the frame itself. */
  path: string;
  message: string;
}

/**
 * Outcome of {@link parseClientFrame} / {@link parseServerFrame}. On failure, `error` is ready to
 * send in an `error` frame and `id` is the offending frame's id when it could be read (else
 * `null`), so the error reaches the request that caused it.
 */
export type FrameParseResult<F> = { ok: true; frame: F } | { ok: false; error: AhpError; id: string | null };

/**
 * UTF-8 length of `text` in bytes, as it goes on the wire, without allocating. A lone surrogate
 * counts 3 bytes (it is sent as U+FFFD).
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Whether `text` is longer than `maxBytes` in UTF-8; cheap bounds first, exact count only when needed. */
function exceedsBytes(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  return utf8ByteLength(text) > maxBytes;
}

/**
 * Deepest nesting a frame may have: the deepest frame structure (about ten levels down to a free-form
 * JSON value) plus `LIMITS.maxJsonDepth` inside it, with room to spare.
 */
const MAX_FRAME_DEPTH = FRAME_SHAPE_LIMITS.maxDepth;

/**
 * Finds keys in {@link FORBIDDEN_KEYS} anywhere in a parsed JSON value, and nesting beyond
 * {@link MAX_FRAME_DEPTH}. Iterative and depth-capped, so neither the stack nor the path copies
 * can grow with a hostile input's depth.
 */
function scanStructure(value: unknown, max: number): FrameIssue[] {
  const found: FrameIssue[] = [];
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [] }];
  for (let item = stack.pop(); item !== undefined && found.length < max; item = stack.pop()) {
    const { value: current, path } = item;
    if (current === null || typeof current !== 'object') continue;
    if (path.length >= MAX_FRAME_DEPTH) {
      found.push({ path: formatPath(path), message: `nested deeper than ${MAX_FRAME_DEPTH} levels` });
      continue;
    }
    // Children go on the stack last-first, so problems are reported in document order.
    const children: { value: unknown; path: PropertyKey[] }[] = [];
    if (Array.isArray(current)) {
      current.forEach((child: unknown, index) => children.push({ value: child, path: [...path, index] }));
    } else {
      for (const [key, child] of Object.entries(current)) {
        if (FORBIDDEN_KEYS.has(key)) {
          found.push({ path: formatPath([...path, key]), message: `key "${key}" is not allowed` });
          if (found.length >= max) return found;
        } else {
          children.push({ value: child, path: [...path, key] });
        }
      }
    }
    children.reverse();
    for (const child of children) stack.push(child);
  }
  return found;
}

function invalidFrame(type: string, issues: FrameIssue[], total: number, id: string | null): FrameParseResult<never> {
  const first = issues[0];
  const where = first === undefined ? '' : `${first.path === '' ? '' : `${first.path}: `}${first.message}`;
  const more = total > 1 ? ` (and ${total - 1} more issue${total > 2 ? 's' : ''})` : '';
  const details: JsonObject = {
    type,
    issue_count: total,
    issues: issues.map((issue) => ({ path: issue.path, message: issue.message })),
  };
  return { ok: false, id, error: makeError('E_INVALID_FRAME', oneLine(`invalid ${type} frame: ${where}${more}`, 512), details) };
}

type Direction = 'client' | 'server';

/**
 * The refusal of a frame whose shape crossed {@link FRAME_SHAPE_LIMITS}. It names the request
 * when the scanner read a valid `id` before the violation, and answers `E_UNKNOWN_TYPE` when it
 * read a `type` that is not one (as a parsed frame would); otherwise `E_INVALID_FRAME`.
 */
function shapeRefusal(shape: Extract<JsonShape, { ok: false }>, direction: Direction, schemas: Readonly<Record<string, z.ZodType>>): FrameParseResult<never> {
  const id = shape.id !== undefined && IdSchema.safeParse(shape.id).success ? shape.id : null;
  if (shape.type !== undefined && !Object.hasOwn(schemas, shape.type)) return { ok: false, id, error: unknownType(shape.type, direction, schemas) };
  const issue: FrameIssue = { path: '', message: `${shape.message} (at character ${shape.offset}); refused before parsing` };
  const details: JsonObject = { issue_count: 1, issues: [{ path: issue.path, message: issue.message }] };
  if (shape.type !== undefined) details['type'] = shape.type;
  return { ok: false, id, error: makeError('E_INVALID_FRAME', oneLine(`invalid ${shape.type ?? direction} frame: ${issue.message}`, 512), details) };
}

function parseFrame<F>(
  text: string,
  maxBytes: number | undefined,
  direction: Direction,
  schemas: Readonly<Record<string, z.ZodType>>,
  shape?: JsonShape,
): FrameParseResult<F> {
  try {
    if (typeof text !== 'string') {
      return { ok: false, id: null, error: makeError('E_BAD_FRAME', 'frame must be a text message containing JSON') };
    }
    if (maxBytes !== undefined && exceedsBytes(text, maxBytes)) {
      return {
        ok: false,
        id: null,
        error: makeError('E_FRAME_TOO_LARGE', `frame is larger than ${maxBytes} bytes`, { max_frame_bytes: maxBytes }),
      };
    }
    // The shape first, in one cheap pass: JSON.parse never sees a frame nested too deep or too
    // wide, whose parsing alone could cost a hundred times what reading it does.
    const measured = shape ?? measureJsonShape(text, FRAME_SHAPE_LIMITS);
    if (!measured.ok) return shapeRefusal(measured, direction, schemas);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, id: null, error: makeError('E_BAD_FRAME', 'frame is not valid JSON') };
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
      return { ok: false, id: null, error: makeError('E_BAD_FRAME', `frame must be a JSON object, got ${got}`) };
    }
    const record = value as Record<string, unknown>;
    const rawId = Object.hasOwn(record, 'id') ? record['id'] : undefined;
    const id = typeof rawId === 'string' && IdSchema.safeParse(rawId).success ? rawId : null;

    const type = Object.hasOwn(record, 'type') ? record['type'] : undefined;
    const schema = typeof type === 'string' && Object.hasOwn(schemas, type) ? schemas[type] : undefined;
    if (typeof type !== 'string' || schema === undefined) {
      return { ok: false, id, error: unknownType(type, direction, schemas) };
    }

    const structural = scanStructure(record, FRAME_LIMITS.maxReportedIssues);
    if (structural.length > 0) return invalidFrame(type, structural, structural.length, id);

    const result = schema.safeParse(record);
    if (result.success) return { ok: true, frame: result.data as F };
    return invalidFrame(type, reportIssues(result.error.issues, { max: FRAME_LIMITS.maxReportedIssues }), result.error.issues.length, id);
  } catch {
    return { ok: false, id: null, error: makeError('E_INTERNAL', 'the frame could not be checked') };
  }
}

function unknownType(type: unknown, direction: Direction, schemas: Readonly<Record<string, z.ZodType>>): AhpError {
  const expected = Object.keys(schemas);
  if (type === undefined) {
    return makeError('E_UNKNOWN_TYPE', 'frame has no "type"', { expected });
  }
  if (typeof type !== 'string') {
    return makeError('E_UNKNOWN_TYPE', `frame "type" must be a string, got ${type === null ? 'null' : typeof type}`, { expected });
  }
  const shown = oneLine(type, 64);
  const other = direction === 'client' ? isServerFrameType(type) : isClientFrameType(type);
  const message = other
    ? `"${shown}" is a ${direction === 'client' ? 'server' : 'client'} frame type; a ${direction} cannot send it`
    : `unknown frame type "${shown}"`;
  return makeError('E_UNKNOWN_TYPE', message, { type: shown, expected });
}

/**
 * Reads one text message from a client, as the gateway must: never throws, and classifies every
 * failure so the gateway can answer it with an `error` frame and keep the connection.
 *
 * Checks, in order: size over `maxBytes` (UTF-8) → `E_FRAME_TOO_LARGE`; a shape over
 * {@link FRAME_SHAPE_LIMITS} (nesting deeper than 64, an object with more than 1,000 keys, an
 * array with more than 100,000 elements, more than 200,000 values), found by {@link measureJsonShape} before `JSON.parse` runs →
 * `E_INVALID_FRAME` (or `E_UNKNOWN_TYPE` when the `type` read so far is not a client type); not
 * JSON or not a JSON object → `E_BAD_FRAME`; `type` missing or not a client type → `E_UNKNOWN_TYPE`; a
 * `__proto__` / `constructor` / `prototype` key anywhere, nesting deeper than 64 levels, or any
 * schema failure →
 * `E_INVALID_FRAME`, with at most ten issues (readable paths) in `details.issues`. The frame's
 * `id` is returned whenever it is a valid id, even if the rest of the frame is not.
 *
 * @param maxBytes - largest accepted frame in UTF-8 bytes. @defaultValue `FRAME_LIMITS.defaultMaxFrameBytes`
 * @param shape - `measureJsonShape(text)` when the caller already took it (the gateway does, to
 *   meter the frame before parsing it); measured here otherwise.
 */
export function parseClientFrame(
  text: string,
  maxBytes: number = FRAME_LIMITS.defaultMaxFrameBytes,
  shape?: JsonShape,
): FrameParseResult<ClientFrame> {
  return parseFrame<ClientFrame>(text, maxBytes, 'client', CLIENT_SCHEMAS, shape);
}

/**
 * Reads one text message from the gateway, as an SDK must: the same classification as
 * {@link parseClientFrame}, against the server frame types. A client that gets a failure should
 * log it and, when `id` is set, fail that pending request; it should not answer the gateway.
 *
 * @param maxBytes - optional size limit in UTF-8 bytes. @defaultValue no limit
 */
export function parseServerFrame(text: string, maxBytes?: number): FrameParseResult<ServerFrame> {
  return parseFrame<ServerFrame>(text, maxBytes, 'server', SERVER_SCHEMAS);
}
