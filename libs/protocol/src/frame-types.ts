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
 * (`PROTOCOL_VERSION`, in `frame-primitives.ts`). The schemas are in `client-frames.ts` and
 * `server-frames.ts`; this module holds the tables over the frame types. `docs/protocol.md`
 * describes the conversation; a test parses every example in it with these schemas.
 */
import type { z } from 'zod';
import {
  CancelFrameSchema,
  EventFrameSchema,
  HelloFrameSchema,
  HookFrameSchema,
  InboxAckFrameSchema,
  RequestFrameSchema,
  ResponseFrameSchema,
  SendFrameSchema,
  SignalResponseFrameSchema,
} from './client-frames.js';
import type { ClientFrame, ClientFrameType } from './client-frames.js';
import {
  AckFrameSchema,
  DecisionFrameSchema,
  ErrorFrameSchema,
  GoawayFrameSchema,
  InboxPushFrameSchema,
  RequestUpdateFrameSchema,
  SignalPushFrameSchema,
  WelcomeFrameSchema,
} from './server-frames.js';
import type { ServerFrame, ServerFrameType } from './server-frames.js';

/** Any frame, either direction. */
export type Frame = ClientFrame | ServerFrame;
/** Any frame type; client and server types never overlap. */
export type FrameType = Frame['type'];

// --- tables over the frame types ---------------------------------------------------------------

/** The schema of each client frame type, in documentation order; the parser dispatches on it. */
export const CLIENT_FRAME_SCHEMAS = {
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

/** The schema of each server frame type, in documentation order (replies first, then pushes). */
export const SERVER_FRAME_SCHEMAS = {
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
export const CLIENT_FRAME_TYPES = Object.freeze(Object.keys(CLIENT_FRAME_SCHEMAS) as ClientFrameType[]);
/** The frame types a gateway may send, in documentation order (replies first, then pushes). */
export const SERVER_FRAME_TYPES = Object.freeze(Object.keys(SERVER_FRAME_SCHEMAS) as ServerFrameType[]);

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
  return typeof value === 'string' && Object.hasOwn(CLIENT_FRAME_SCHEMAS, value);
}

/** Whether `value` is a server frame type. */
export function isServerFrameType(value: unknown): value is ServerFrameType {
  return typeof value === 'string' && Object.hasOwn(SERVER_FRAME_SCHEMAS, value);
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
