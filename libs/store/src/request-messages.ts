/**
 * The inbox messages request transitions write (in the same script as the change, so they exist
 * exactly when it does), each followed by a notice to the recipient's gateway feed:
 *
 * | transition                              | recipient          | message `type`      | `from`                 | `content`        | `metadata` |
 * |-----------------------------------------|--------------------|---------------------|------------------------|------------------|------------|
 * | created, target `{ kind: 'agent' }`     | the target agent   | `<type>_request`    | sender                 | summary¹         | `request_id`, `payload`², `deadline`? |
 * | created, target `{ kind: 'operators' }` | nobody (the console tails the audit stream) | | | | |
 * | approved / rejected                     | the sender         | `<type>_response`   | `decided_by`           | feedback or `''` | `request_id`, `approve`, `status`, `decided_by`, `feedback`?, `modified_input`?² |
 * | expired                                 | the sender         | `<type>_response`   | `system`               | `'expired'`      | `request_id`, `approve: false`, `status: 'expired'`, `feedback: 'expired'` |
 * | cancelled, target `{ kind: 'agent' }`   | the target agent   | `<type>_response`   | sender                 | `'cancelled'`    | `request_id`, `approve: false`, `status: 'cancelled'`, `decided_by`, `feedback: 'cancelled'` |
 * | cancelled, target `{ kind: 'operators' }` | nobody (the console follows the request) | | | | |
 *
 * A cancellation is the sender's own act, answered by the `ack` of its `cancel` frame, so the sender
 * gets no message about it; the addressee does, since it may be acting on the request already.
 *
 * ¹ shutdown: the reason, or "Please shut down."; plan_approval: the plan's title; tool_approval:
 *   "Approve a call of tool <tool>.".
 * ² Copied whole. The only value that can fail to fit is a JSON object nested within a level of
 *   the protocol's depth limit (metadata adds one level): it is then left out and
 *   `payload_omitted: true` / `modified_input_omitted: true` says so; the request holds it.
 *
 * Every settling transition (approved, rejected, expired, cancelled) also withdraws the
 * `<type>_request` message from the target's inbox if it is still unacknowledged, so an agent that
 * comes back online never acts on a request that is over. Refused answers (a contrary decision, a
 * response of the wrong type) produce no message; they are recorded in the history and the audit
 * stream. Message ids are random UUIDs; `sent_at` is the transition time.
 */
import { randomUUID } from 'node:crypto';
import { InboxMessageSchema, requestMessageType, responseTypeFor, type InboxMessage, type ProtocolState } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import { describeIssues } from './validate.js';

/** The id that stands for the store itself: `from` of an expiry response, the actor of an expiry. */
export const SYSTEM_ACTOR_ID = 'system';

/**
 * An inbox message, checked. When the bulky metadata value `optionalKey` makes it invalid (see the
 * module comment, note ²), the message is built again without it and says so.
 */
function fitMessage(base: Omit<InboxMessage, 'metadata'>, metadata: InboxMessage['metadata'], optionalKey: string): InboxMessage {
  const full = InboxMessageSchema.safeParse({ ...base, metadata });
  if (full.success) return full.data;
  const { [optionalKey]: _omitted, ...rest } = metadata;
  const reduced = InboxMessageSchema.safeParse({ ...base, metadata: { ...rest, [`${optionalKey}_omitted`]: true } });
  if (!reduced.success) throw new StoreInputError(`cannot build the inbox message of request ${String(metadata.request_id)}: ${describeIssues(reduced.error.issues)}`);
  return reduced.data;
}

/** One line saying what a request asks: the text of its `<type>_request` inbox message and of its notifications. */
export function requestSummary(state: ProtocolState): string {
  switch (state.type) {
    case 'shutdown':
      return state.payload.reason ?? 'Please shut down.';
    case 'plan_approval':
      return state.payload.plan.title;
    case 'tool_approval':
      return `Approve a call of tool ${state.payload.tool}.`;
    case 'intervention':
      return `Stopped (${state.payload.reason}): ${state.payload.summary}`;
  }
}

/** The `<type>_request` message for the target agent of a new request. */
export function requestMessage(state: ProtocolState, target: string, at: string): InboxMessage {
  return fitMessage(
    { id: randomUUID(), from: state.sender, to: target, type: requestMessageType(state.type), content: requestSummary(state), sent_at: at },
    { request_id: state.request_id, payload: state.payload, ...(state.deadline === undefined ? {} : { deadline: state.deadline }) },
    'payload',
  );
}

/**
 * The `<type>_response` message a settled request leaves: for its sender, or, for a cancelled one,
 * for the agent it was addressed to (none when operators were: they follow the request itself).
 */
export function settledMessage(state: ProtocolState, at: string): InboxMessage | undefined {
  if (state.status !== 'cancelled') return responseMessage(state, state.sender, at);
  return state.target.kind === 'agent' ? responseMessage(state, state.target.agent, at) : undefined;
}

/** The `<type>_response` message telling `to` how a request settled. */
function responseMessage(state: ProtocolState, to: string, at: string): InboxMessage {
  const feedback = state.status === 'expired' || state.status === 'cancelled' ? state.status : state.feedback;
  return fitMessage(
    {
      id: randomUUID(),
      from: state.decided_by ?? SYSTEM_ACTOR_ID,
      to,
      type: responseTypeFor(state.type),
      content: feedback ?? '',
      sent_at: at,
    },
    {
      request_id: state.request_id,
      approve: state.status === 'approved',
      status: state.status,
      ...(state.decided_by === undefined ? {} : { decided_by: state.decided_by }),
      ...(feedback === undefined ? {} : { feedback }),
      ...(state.modified_input === undefined ? {} : { modified_input: state.modified_input }),
    },
    'modified_input',
  );
}
