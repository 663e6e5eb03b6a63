/**
 * Requests that need a decision from someone else (docs/spec/teams.md#requests): a lead asking a teammate to shut
 * down, a teammate submitting a plan for approval, an agent's tool call waiting for a person. Each
 * is a {@link ProtocolState} correlated by `request_id`; answers are {@link ProtocolResponse}s. The
 * state machine is pure: the functions below return the next state and the store persists it
 * atomically (first decision wins).
 *
 * ```
 *            applyResponse(approve)        ┌─► approved
 * pending ───────────────────────────────┤
 *    │       applyResponse(reject)         └─► rejected
 *    ├── expireRequest / late response ──────► expired
 *    └── cancelRequest (sender only) ───────► cancelled
 * ```
 */
import { z } from 'zod';
import { PlanSchema } from './plan.js';
import { IdSchema, JsonObjectSchema, ShortStringSchema, TextSchema, TimestampSchema, UuidSchema, boundedArray } from './primitives.js';

/**
 * A request id: `req_` followed by id characters (letters, digits, `._:-`), at most 128 characters
 * in all, so every request id is also a valid `Id`. The original design's `req_042871` is one; generating ids
 * (and making them unguessable) is the caller's job.
 */
export const RequestIdSchema = z
  .string()
  .max(128)
  .regex(/^req_[A-Za-z0-9._:-]+$/, 'must be "req_" followed by letters, digits or . _ : -')
  .meta({ id: 'RequestId', description: 'Request id: "req_" + letters, digits, . _ : - (max 128 characters).' });
export type RequestId = z.infer<typeof RequestIdSchema>;

export const REQUEST_TYPES = ['shutdown', 'plan_approval', 'tool_approval', 'intervention'] as const;

/** What is being asked: stop the agent, approve a plan, approve a tool call, or a person's intervention (an agent stuck past a circuit breaker). */
export const RequestTypeSchema = z.enum(REQUEST_TYPES).meta({
  id: 'RequestType',
  description: 'shutdown | plan_approval | tool_approval | intervention.',
});
export type RequestType = z.infer<typeof RequestTypeSchema>;

/** The response type for each request type; a request accepts only its own (docs/spec/teams.md#matching-responses). */
export const RESPONSE_TYPE_FOR = Object.freeze({
  shutdown: 'shutdown_response',
  plan_approval: 'plan_approval_response',
  tool_approval: 'tool_approval_response',
  intervention: 'intervention_response',
} as const satisfies Record<RequestType, string>);

export const ResponseTypeSchema = z
  .enum(['shutdown_response', 'plan_approval_response', 'tool_approval_response', 'intervention_response'])
  .meta({ id: 'ResponseType', description: 'shutdown_response | plan_approval_response | tool_approval_response | intervention_response.' });
export type ResponseType = z.infer<typeof ResponseTypeSchema>;

/** The only response type a request of `type` accepts. */
export function responseTypeFor(type: RequestType): ResponseType {
  return RESPONSE_TYPE_FOR[type];
}

/** The request type a response of `type` answers. */
export function requestTypeFor(type: ResponseType): RequestType {
  switch (type) {
    case 'shutdown_response':
      return 'shutdown';
    case 'plan_approval_response':
      return 'plan_approval';
    case 'tool_approval_response':
      return 'tool_approval';
    case 'intervention_response':
      return 'intervention';
  }
}

/**
 * Where a request stands. `pending` is the only open status; the others are final. `expired`: the
 * deadline passed undecided. `cancelled`: the sender withdrew it.
 */
export const RequestStatusSchema = z.enum(['pending', 'approved', 'rejected', 'expired', 'cancelled']).meta({
  id: 'RequestStatus',
  description: 'pending | approved | rejected | expired | cancelled; all but pending are final.',
});
export type RequestStatus = z.infer<typeof RequestStatusSchema>;

/** Whether `status` is final: no transition leaves it. */
export function isTerminalStatus(status: RequestStatus): boolean {
  return status !== 'pending';
}

/** Who must decide: one agent (a lead, a teammate) or any operator in the console. */
export const RequestTargetSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('agent'), agent: IdSchema }),
    z.strictObject({ kind: z.literal('operators') }),
  ])
  .meta({ id: 'RequestTarget', description: 'Who decides: one agent, or any operator.' });
export type RequestTarget = z.infer<typeof RequestTargetSchema>;

/** Payload of a shutdown request: why the agent should stop. */
export const ShutdownRequestPayloadSchema = z
  .strictObject({ reason: TextSchema.optional() })
  .meta({ id: 'ShutdownRequestPayload', description: 'Shutdown request payload: optional reason.' });
export type ShutdownRequestPayload = z.infer<typeof ShutdownRequestPayloadSchema>;

/** Payload of a plan approval request: the structured plan (the original design sent plan text; docs/spec/teams.md#deviations-from-the-original-design). */
export const PlanApprovalPayloadSchema = z
  .strictObject({ plan: PlanSchema })
  .meta({ id: 'PlanApprovalPayload', description: 'Plan approval request payload: the plan to approve.' });
export type PlanApprovalPayload = z.infer<typeof PlanApprovalPayloadSchema>;

/** The most rules one tool approval names in `rules` (the rules of one configuration that ask about one call). */
export const MAX_APPROVAL_RULES = 64;

const InputDigestSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256 digest (64 characters)');

/**
 * What a tool approval turns into when its deadline passes undecided: `reject` (the default) or
 * `approve`. Either way the request's status is `expired`; this says how the call is decided.
 */
export const ApprovalOnExpirySchema = z.enum(['reject', 'approve']).meta({
  id: 'ApprovalOnExpiry',
  description: 'How an expired tool approval decides the call: reject (default) or approve.',
});
export type ApprovalOnExpiry = z.infer<typeof ApprovalOnExpirySchema>;

/**
 * What an agent's permission prompt (Claude Code's PermissionRequest, Codex's, Copilot's) answers
 * when its hook waited for an operator's decision on a tool approval and nobody decided within
 * the hook's time: `dialog` (the default) answers with no decision, so the agent shows its own
 * prompt to its user; `deny` refuses the call. The request stays open either way; a decision
 * taken after that is recorded as coming after the fallback (docs/claude-code.md).
 */
export const PromptFallbackSchema = z.enum(['dialog', 'deny']).meta({
  id: 'PromptFallback',
  description: "What a held permission prompt answers when no operator decided in the hook's time: dialog (default, the agent's own prompt) or deny.",
});
export type PromptFallback = z.infer<typeof PromptFallbackSchema>;

/**
 * Payload of a tool approval request. `input_digest` is the SHA-256 (lowercase hex) of the
 * canonical JSON of the tool input (keys sorted, no whitespace) as the agent will run it, so an
 * approval cannot be replayed for a different input; the caller computes it (hashing needs a
 * crypto API, which this library does not import), the schema checks only its format. `hook_id`
 * links the request to the hook that asked for approval.
 *
 * Requests a rule opens (hooks.yaml `require_approval`) also carry `session_id` (an approval
 * applies only in the session that asked for it), `on_expiry`, `reason` (the rule's message,
 * shown to the operator), `rule` (`<trigger>/<oracle>/<rule id>` of the first rule that asked) and
 * `rules` (every rule that asked, sorted): the approval satisfies only a call those same rules,
 * on the same terms, ask about again.
 */
export const ToolApprovalPayloadSchema = z
  .strictObject({
    tool: ShortStringSchema,
    input: JsonObjectSchema,
    input_digest: InputDigestSchema,
    hook_id: UuidSchema.optional(),
    session_id: IdSchema.optional(),
    on_expiry: ApprovalOnExpirySchema.optional(),
    reason: TextSchema.optional(),
    rule: ShortStringSchema.optional(),
    rules: boundedArray(ShortStringSchema, MAX_APPROVAL_RULES).optional(),
  })
  .meta({ id: 'ToolApprovalPayload', description: 'Tool approval request payload: tool, input, input digest.' });
export type ToolApprovalPayload = z.infer<typeof ToolApprovalPayloadSchema>;

/**
 * Payload of an intervention request: an agent stopped by one of its circuit breakers
 * (docs/spec/circuit-breakers.md#intervention-requests; `MAX_ITER` above all) asks a person to look. Approving means "continue" (the agent may run
 * again, with `feedback` as guidance); rejecting means "stay stopped".
 */
export const InterventionPayloadSchema = z
  .strictObject({
    /** Why the agent stopped: a circuit-breaker code (`MAX_ITER`, `E_STUTTERING`, …) or another short reason. */
    reason: ShortStringSchema,
    /** What the agent was doing, for the person deciding. */
    summary: TextSchema,
    session_id: IdSchema.optional(),
    iteration: z.int().nonnegative().optional(),
    plan_step: IdSchema.optional(),
  })
  .meta({ id: 'InterventionPayload', description: 'Intervention request payload: why the agent stopped and what it was doing.' });
export type InterventionPayload = z.infer<typeof InterventionPayloadSchema>;

const stateFields = {
  request_id: RequestIdSchema,
  sender: IdSchema,
  target: RequestTargetSchema,
  status: RequestStatusSchema,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  deadline: TimestampSchema.optional(),
  decided_by: IdSchema.optional(),
  decided_at: TimestampSchema.optional(),
  feedback: TextSchema.optional(),
  modified_input: JsonObjectSchema.optional(),
};

/**
 * The state of one request (docs/spec/teams.md#request-state-machine), discriminated on `type` so the payload
 * always matches the request type. Invariants, reported at the offending field:
 * - `pending`: not decided yet, so no `decided_by`, `decided_at`, `feedback`, `modified_input`.
 * - `approved`, `rejected`, `cancelled`: `decided_by` (the decider, or the sender who cancelled) and
 *   `decided_at` are set.
 * - `expired`: `decided_at` (when it expired) is set and `decided_by` is not — nobody decided.
 * - `modified_input` only on an approved tool approval (the person approved an edited input).
 * `sender` and `decided_by` are agent ids or operator ids, as the gateway names them.
 */
export const ProtocolStateSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ ...stateFields, type: z.literal('shutdown'), payload: ShutdownRequestPayloadSchema }),
    z.strictObject({ ...stateFields, type: z.literal('plan_approval'), payload: PlanApprovalPayloadSchema }),
    z.strictObject({ ...stateFields, type: z.literal('tool_approval'), payload: ToolApprovalPayloadSchema }),
    z.strictObject({ ...stateFields, type: z.literal('intervention'), payload: InterventionPayloadSchema }),
  ])
  .superRefine((state, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (state.status === 'pending') {
      for (const key of ['decided_by', 'decided_at', 'feedback', 'modified_input'] as const) {
        if (state[key] !== undefined) problem(key, `a pending request has no ${key}`);
      }
    } else {
      if (state.decided_at === undefined) problem('decided_at', `a ${state.status} request records when it was settled`);
      if (state.status === 'expired' && state.decided_by !== undefined) {
        problem('decided_by', 'an expired request was decided by nobody');
      }
      if (state.status !== 'expired' && state.decided_by === undefined) {
        problem('decided_by', `a ${state.status} request records who settled it`);
      }
    }
    if (state.modified_input !== undefined && (state.type !== 'tool_approval' || state.status !== 'approved')) {
      problem('modified_input', 'only an approved tool approval can carry a modified input');
    }
  })
  .meta({ id: 'ProtocolState', description: 'The state of one request: who asked whom for what, and where it stands.' });
export type ProtocolState = z.infer<typeof ProtocolStateSchema>;

/**
 * An answer to a request (docs/spec/teams.md#matching-responses): approve or reject, with optional feedback.
 * `modified_input` is only valid when approving a tool approval: the approver edited the input.
 */
export const ProtocolResponseSchema = z
  .strictObject({
    request_id: RequestIdSchema,
    type: ResponseTypeSchema,
    approve: z.boolean(),
    feedback: TextSchema.optional(),
    modified_input: JsonObjectSchema.optional(),
  })
  .superRefine((response, ctx) => {
    if (response.modified_input === undefined) return;
    if (response.type !== 'tool_approval_response') {
      ctx.addIssue({ code: 'custom', path: ['modified_input'], message: 'only a tool approval response can modify the input' });
    } else if (!response.approve) {
      ctx.addIssue({ code: 'custom', path: ['modified_input'], message: 'a rejection cannot modify the input' });
    }
  })
  .meta({ id: 'ProtocolResponse', description: 'An answer to a request: approve or reject, with feedback.' });
export type ProtocolResponse = z.infer<typeof ProtocolResponseSchema>;

/** Fields common to every {@link createRequest} call; `now` and `requestId` come from the caller. */
interface CreateRequestBase {
  requestId: string;
  sender: string;
  target: RequestTarget;
  now: string;
  deadline?: string;
}

/** Input of {@link createRequest}: the type with its matching payload. */
export type CreateRequestInput = CreateRequestBase &
  (
    | { type: 'shutdown'; payload: ShutdownRequestPayload }
    | { type: 'plan_approval'; payload: PlanApprovalPayload }
    | { type: 'tool_approval'; payload: ToolApprovalPayload }
    | { type: 'intervention'; payload: InterventionPayload }
  );

/** A new pending request. Pure: the id and the time are arguments. */
export function createRequest(input: CreateRequestInput): ProtocolState {
  const base = {
    request_id: input.requestId,
    sender: input.sender,
    target: input.target,
    status: 'pending' as const,
    created_at: input.now,
    updated_at: input.now,
    ...(input.deadline === undefined ? {} : { deadline: input.deadline }),
  };
  switch (input.type) {
    case 'shutdown':
      return { ...base, type: 'shutdown', payload: input.payload };
    case 'plan_approval':
      return { ...base, type: 'plan_approval', payload: input.payload };
    case 'tool_approval':
      return { ...base, type: 'tool_approval', payload: input.payload };    case 'intervention':
      return { ...base, type: 'intervention', payload: input.payload };
  }
}

/** Whether `state` is pending with a deadline at or before `now`. */
export function isPastDeadline(state: ProtocolState, now: string): boolean {
  if (state.status !== 'pending' || state.deadline === undefined) return false;
  return Date.parse(now) >= Date.parse(state.deadline);
}

function expired(state: ProtocolState, now: string): ProtocolState {
  return { ...state, status: 'expired', updated_at: now, decided_at: now };
}

/**
 * The result of {@link applyResponse}. Persist `state` when the outcome is `applied` or `expired`;
 * the other outcomes leave the stored state as it is.
 * - `applied`: the request was pending; `state` is the decided one.
 * - `already_decided`: the same decision arrived again; nothing changes (idempotent, docs/spec/teams.md#matching-responses).
 * - `conflict`: a contrary decision after the request was decided; refused, `state` shows who
 *   decided what (first decision wins).
 * - `not_pending`: the request is expired or cancelled.
 * - `expired`: the response came after the deadline; `state` is the request, now expired.
 * - `type_mismatch`: the response type does not answer this request type (e.g. a
 *   `plan_approval_response` to a shutdown request).
 * - `request_mismatch`: the response names another request.
 */
export type ApplyResponseResult =
  | { outcome: 'applied'; state: ProtocolState }
  | { outcome: 'already_decided'; state: ProtocolState }
  | { outcome: 'conflict'; state: ProtocolState }
  | { outcome: 'not_pending'; state: ProtocolState }
  | { outcome: 'expired'; state: ProtocolState }
  | { outcome: 'type_mismatch'; expected: ResponseType; received: ResponseType }
  | { outcome: 'request_mismatch'; expected: string; received: string };

/** Who decides and when, for {@link applyResponse}. */
export interface DecisionContext {
  /** The agent or operator id that answered; authorising them is the caller's job. */
  decidedBy: string;
  now: string;
}

/**
 * Applies a response to a request (docs/spec/teams.md#matching-responses), pure and total. Checks, in
 * order: the request id, the response type, the current status (a decided request compares the
 * decision: same → `already_decided`, contrary → `conflict`), the deadline, then decides.
 * `feedback` is recorded when given; `modified_input` only when approving a tool approval (in any
 * other case it is ignored; {@link ProtocolResponseSchema} already rejects it on the wire).
 */
export function applyResponse(
  state: ProtocolState,
  response: ProtocolResponse,
  context: DecisionContext,
): ApplyResponseResult {
  if (response.request_id !== state.request_id) {
    return { outcome: 'request_mismatch', expected: state.request_id, received: response.request_id };
  }
  const expected = responseTypeFor(state.type);
  if (response.type !== expected) return { outcome: 'type_mismatch', expected, received: response.type };
  switch (state.status) {
    case 'approved':
    case 'rejected': {
      const same = (state.status === 'approved') === response.approve;
      return { outcome: same ? 'already_decided' : 'conflict', state };
    }
    case 'expired':
    case 'cancelled':
      return { outcome: 'not_pending', state };
    case 'pending':
      break;
  }
  if (isPastDeadline(state, context.now)) return { outcome: 'expired', state: expired(state, context.now) };
  const decided: ProtocolState = {
    ...state,
    status: response.approve ? 'approved' : 'rejected',
    updated_at: context.now,
    decided_by: context.decidedBy,
    decided_at: context.now,
    ...(response.feedback === undefined ? {} : { feedback: response.feedback }),
    ...(state.type === 'tool_approval' && response.approve && response.modified_input !== undefined
      ? { modified_input: response.modified_input }
      : {}),
  };
  return { outcome: 'applied', state: decided };
}

/** The result of {@link expireRequest}. Persist `state` only when the outcome is `expired`. */
export type ExpireRequestResult =
  | { outcome: 'expired'; state: ProtocolState }
  | { outcome: 'not_due'; state: ProtocolState }
  | { outcome: 'not_pending'; state: ProtocolState };

/**
 * Expires a pending request whose deadline is at or before `now`. A request without a deadline is
 * never due; a settled request is left alone.
 */
export function expireRequest(state: ProtocolState, now: string): ExpireRequestResult {
  if (state.status !== 'pending') return { outcome: 'not_pending', state };
  if (!isPastDeadline(state, now)) return { outcome: 'not_due', state };
  return { outcome: 'expired', state: expired(state, now) };
}

/** The result of {@link cancelRequest}. Persist `state` only when the outcome is `cancelled`. */
export type CancelRequestResult =
  | { outcome: 'cancelled'; state: ProtocolState }
  | { outcome: 'not_pending'; state: ProtocolState }
  | { outcome: 'forbidden'; state: ProtocolState };

/** Withdraws a pending request. Only its sender may; `decided_by` records them. */
export function cancelRequest(state: ProtocolState, by: string, now: string): CancelRequestResult {
  if (state.status !== 'pending') return { outcome: 'not_pending', state };
  if (by !== state.sender) return { outcome: 'forbidden', state };
  return { outcome: 'cancelled', state: { ...state, status: 'cancelled', updated_at: now, decided_by: by, decided_at: now } };
}
