/**
 * Messages between agents through their durable inboxes (docs/spec/teams.md#messages-and-inboxes; the
 * original design's `BUS.send(from, to, content, type, metadata)`). Plain chat and protocol traffic share the channel; protocol messages carry a
 * `request_id` in their metadata, and the consumer routes every `*_response` carrying one to the
 * request state machine (docs/spec/teams.md#messages-and-inboxes: one consumer).
 */
import { z } from 'zod';
import {
  IdSchema,
  JsonObjectSchema,
  JsonValueSchema,
  LIMITS,
  LongTextSchema,
  TextSchema,
  TimestampSchema,
  inspectJsonValue,
} from './primitives.js';
import {
  RequestIdSchema,
  ResponseTypeSchema,
  type ProtocolResponse,
  type RequestId,
  type RequestType,
  type ResponseType,
} from './request.js';

export const INBOX_MESSAGE_TYPES = [
  'message',
  'shutdown_request',
  'shutdown_response',
  'plan_approval_request',
  'plan_approval_response',
  'tool_approval_request',
  'tool_approval_response',
  'intervention_request',
  'intervention_response',
  'idle_notification',
] as const;

/**
 * What a message is: free text (`message`), a protocol request or response, or an
 * `idle_notification` (a teammate tells its lead that it finished and waits for work).
 */
export const InboxMessageTypeSchema = z.enum(INBOX_MESSAGE_TYPES).meta({
  id: 'InboxMessageType',
  description: 'message, a protocol *_request / *_response, or idle_notification.',
});
export type InboxMessageType = z.infer<typeof InboxMessageTypeSchema>;

/**
 * Message metadata. The keys the protocol reads are typed: `request_id`, `approve` (responses),
 * `feedback`, `modified_input` (a tool approval approved with an edited input). Other keys are allowed, because metadata is the original design's open extension point, but only
 * as safe JSON: the whole value is checked like a `JsonObject` (no `__proto__`, bounded size and
 * depth) before its known keys are typed.
 */
export const InboxMetadataSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    for (const issue of inspectJsonValue(value)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  })
  .pipe(
    z
      .object({
        request_id: RequestIdSchema.optional(),
        approve: z.boolean().optional(),
        feedback: TextSchema.optional(),
        modified_input: JsonObjectSchema.optional(),
      })
      .catchall(JsonValueSchema),
  )
  .meta({
    id: 'InboxMetadata',
    description: 'Message metadata: request_id, approve, feedback, modified_input, plus other JSON keys.',
    type: 'object',
  });
export type InboxMetadata = z.infer<typeof InboxMetadataSchema>;

/**
 * One inbox message. Invariants: a protocol request or response carries `metadata.request_id`
 * (it is how the answer finds its request), and a response also carries `metadata.approve`
 * (a response that does not say yes or no cannot decide anything; the original design defaulted it to false (docs/spec/teams.md#deviations-from-the-original-design),
 * we reject it instead of guessing). `metadata` may be omitted and then parses as `{}`.
 */
export const InboxMessageSchema = z
  .strictObject({
    id: IdSchema,
    from: IdSchema,
    to: IdSchema,
    content: LongTextSchema,
    type: InboxMessageTypeSchema,
    metadata: InboxMetadataSchema.default({}),
    sent_at: TimestampSchema,
  })
  .superRefine((msg, ctx) => {
    if (isProtocolType(msg.type) && msg.metadata.request_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['metadata', 'request_id'], message: `a ${msg.type} message needs a request_id` });
    }
    if (msg.type.endsWith('_response') && msg.metadata.approve === undefined) {
      ctx.addIssue({ code: 'custom', path: ['metadata', 'approve'], message: `a ${msg.type} message must say approve: true or false` });
    }
  })
  .meta({ id: 'InboxMessage', description: 'A message in an agent inbox: from, to, content, type, metadata.' });
export type InboxMessage = z.infer<typeof InboxMessageSchema>;

function isProtocolType(type: InboxMessageType): boolean {
  return type.endsWith('_request') || type.endsWith('_response');
}

/** Whether `msg` belongs to a request/response protocol (a `*_request` or `*_response`). */
export function isProtocolMessage(msg: Pick<InboxMessage, 'type'>): boolean {
  return isProtocolType(msg.type);
}

/**
 * Whether `msg` is a protocol response to route to its request: its type ends with `_response`
 * and it carries a `request_id` (docs/spec/teams.md#messages-and-inboxes).
 */
export function isProtocolResponse(msg: Pick<InboxMessage, 'type' | 'metadata'>): boolean {
  return msg.type.endsWith('_response') && typeof msg.metadata.request_id === 'string' && msg.metadata.request_id !== '';
}

/** The request a message belongs to, or `null` for messages outside a protocol. */
export function requestIdOf(msg: Pick<InboxMessage, 'metadata'>): RequestId | null {
  return msg.metadata.request_id ?? null;
}

/** The inbox message type that carries a request of `type`. */
export function requestMessageType(type: RequestType): InboxMessageType {
  return `${type}_request`;
}

/**
 * The protocol response an inbox message carries, or `null` when it is not one. `feedback` comes
 * from `metadata.feedback`, else from a non-blank `content` (the original design sends the review text, e.g.
 * "LGTM", as the message content). `modified_input` is taken only from an approving tool approval
 * response.
 */
export function toProtocolResponse(msg: InboxMessage): ProtocolResponse | null {
  if (!isProtocolResponse(msg)) return null;
  const type = ResponseTypeSchema.safeParse(msg.type);
  const requestId = msg.metadata.request_id;
  const approve = msg.metadata.approve;
  if (!type.success || requestId === undefined || approve === undefined) return null;
  const responseType: ResponseType = type.data;
  const feedback = msg.metadata.feedback ?? (msg.content.trim() === '' ? undefined : msg.content.slice(0, LIMITS.maxText));
  const modifiedInput =
    responseType === 'tool_approval_response' && approve ? msg.metadata.modified_input : undefined;
  return {
    request_id: requestId,
    type: responseType,
    approve,
    ...(feedback === undefined ? {} : { feedback }),
    ...(modifiedInput === undefined ? {} : { modified_input: modifiedInput }),
  };
}
