/**
 * Tool approvals required by rules (hooks.yaml `require_approval`), as data: what a rule's signal
 * hands to the worker, how a waiting decision and the agent's second hook name the request, and
 * the session-wide grants operators record. The flow (docs/protocol.md, "Tool approvals required
 * by rules"):
 *
 * 1. A `pre-tool-use` hook matches a rule with `require_approval`. The worker opens a
 *    `tool_approval` request ({@link toolApprovalRequestId} of the hook) and answers with a block
 *    whose signal has `resolution: { kind: 'await_approval', request_id, deadline }`.
 * 2. A person decides (operator API). The agent sends the same call again as a new hook with
 *    `context.approval = { request_id }` ({@link HookApprovalRefSchema}); the worker answers with
 *    the person's decision: allow, control (the approved input), or block (their feedback, or the
 *    expiry).
 * 3. An approval with `scope: 'session'` (or `'session_tool'`) also records a {@link ToolGrant}:
 *    later calls in the session that match it are allowed without asking, until it is revoked.
 *
 * Pure: no hashing here (the digest of an input is SHA-256 of its canonical JSON, computed by the
 * store and the SDK).
 */
import { z } from 'zod';
import type { BlockResolution } from './decision.js';
import type { HookDecision } from './hook-decision.js';
import { IdSchema, JsonObjectSchema, ShortStringSchema, TimestampSchema, boundedArray, type JsonObject } from './primitives.js';
import { ApprovalOnExpirySchema, MAX_APPROVAL_RULES, PromptFallbackSchema, RequestIdSchema, type PromptFallback, type ProtocolState } from './request.js';
import type { Signal } from './signal.js';

/** Prefix of the id of a request a rule opened for a hook: `req_tool_<hook id>`. */
export const TOOL_APPROVAL_REQUEST_PREFIX = 'req_tool_';

/**
 * The id of the tool approval request a hook asks for. Deterministic, so that a worker that
 * evaluates the same hook again (a retried job) finds the request it opened instead of opening a
 * second one.
 */
export function toolApprovalRequestId(hookId: string): string {
  return `${TOOL_APPROVAL_REQUEST_PREFIX}${hookId}`;
}

/**
 * Whether `state` is a tool approval a rule opened for a hook: its id is the one derived from its
 * `hook_id` (agents may not open requests under that prefix: the gateway refuses them) and it is
 * addressed to operators, the only audience a rule's approval has. Only such a request (or a grant
 * an operator recorded from one) can satisfy a rule; a tool approval an agent opened itself — to
 * its lead, or to operators — never does, whoever approved it.
 */
export function openedByRule(state: ProtocolState): boolean {
  return (
    state.type === 'tool_approval' &&
    state.payload.hook_id !== undefined &&
    state.request_id === toolApprovalRequestId(state.payload.hook_id) &&
    state.target.kind === 'operators'
  );
}

/**
 * The identity of a rule that asks for approval, as a request records it: `<trigger>/<oracle>`
 * and, when the signal names its rule (`context.rule`), `/<rule id>`. At most 256 characters.
 */
export function approvalRuleOf(trigger: string, signal: Signal): string {
  const rule = signal.context['rule'];
  return `${trigger}/${signal.header.source}${typeof rule === 'string' ? `/${rule}` : ''}`.slice(0, 256);
}

/**
 * The rules a rule-opened request was asked for (`payload.rules`, sorted); a request written
 * before `rules` existed names its one `rule`. Empty for anything else.
 */
export function approvalRulesOf(state: ProtocolState): readonly string[] {
  if (state.type !== 'tool_approval') return [];
  return state.payload.rules ?? (state.payload.rule === undefined ? [] : [state.payload.rule]);
}

/** Signal types of the approval flow, one per outcome, so the signal log tells them apart. */
export const APPROVAL_SIGNAL_TYPES = Object.freeze({
  /** A block: the call waits for a person (carries the `await_approval` resolution). */
  required: 'approval-required',
  /** Allowed by a person: an aid signal, or a control signal with the approved input. */
  approved: 'approval-approved',
  /** Blocked by a person; the reason is their feedback. */
  rejected: 'approval-rejected',
  /** Nobody decided before the deadline; blocks, or allows when the rule says `on_expiry: approve`. */
  expired: 'approval-expired',
  /** Allowed by a session grant, without asking (an aid signal naming the grant). */
  granted: 'approval-granted',
} as const);

/**
 * What a rule that requires approval hands to the worker: `context.approval` of its (blocking)
 * signal, before any request exists. The worker replaces that signal with the outcome.
 */
export const ApprovalRequirementSchema = z
  .strictObject({
    deadline_ms: z.int().positive(),
    on_expiry: ApprovalOnExpirySchema,
    /** What a held permission prompt answers when nobody decided in time (absent: `dialog`). */
    prompt_fallback: PromptFallbackSchema.optional(),
  })
  .meta({ id: 'ApprovalRequirement', description: 'A rule asks for approval: request deadline (ms), what expiry decides, and the permission prompt fallback.' });
export type ApprovalRequirement = z.infer<typeof ApprovalRequirementSchema>;

/** The approval requirement of a signal (its `context.approval`), when it has one. */
export function approvalRequirementOf(signal: Signal): ApprovalRequirement | undefined {
  if (signal.payload.level !== 'blocking') return undefined;
  const parsed = ApprovalRequirementSchema.safeParse(signal.context['approval']);
  return parsed.success ? parsed.data : undefined;
}

/**
 * `context.approval` of a `pre-tool-use` hook that presents a settled approval: the request the
 * previous decision waited for. The worker checks it against the store; one that does not bind to
 * this call (another agent, session, tool or input) is ignored.
 */
export const HookApprovalRefSchema = z
  .strictObject({ request_id: RequestIdSchema })
  .meta({ id: 'HookApprovalRef', description: 'context.approval of a re-sent tool call: the approval request it presents.' });
export type HookApprovalRef = z.infer<typeof HookApprovalRefSchema>;

/** The request id a hook context presents in `context.approval`, when it presents a valid one. */
export function presentedApproval(context: JsonObject): string | undefined {
  const parsed = HookApprovalRefSchema.safeParse(context['approval']);
  return parsed.success ? parsed.data.request_id : undefined;
}

/** A decision that waits for a person: the request, its deadline, and the signal that says so. */
export interface AwaitingApproval {
  readonly request_id: string;
  readonly deadline: string;
  readonly signal: Signal;
}

/** Whether `decision` is a block that waits for an approval, and for which request. */
export function awaitingApproval(decision: HookDecision): AwaitingApproval | undefined {
  if (decision.allowed) return undefined;
  for (const signal of decision.signals) {
    if (signal.payload.level !== 'blocking') continue;
    const resolution: BlockResolution | undefined = signal.payload.resolution;
    if (resolution?.kind === 'await_approval') return { request_id: resolution.request_id, deadline: resolution.deadline, signal };
  }
  return undefined;
}

/**
 * What a held permission prompt answers when nobody decides `waiting` in time: the rule's
 * `prompt_fallback`, which the worker writes into the waiting signal's `context.approval`;
 * `dialog` when it names none (a decision of a worker older than the field).
 */
export function promptFallbackOf(waiting: AwaitingApproval): PromptFallback {
  const approval = waiting.signal.context['approval'];
  const named = typeof approval === 'object' && approval !== null && !Array.isArray(approval) ? (approval as JsonObject)['prompt_fallback'] : undefined;
  const parsed = PromptFallbackSchema.safeParse(named);
  return parsed.success ? parsed.data : 'dialog';
}

/**
 * How far an operator's approval reaches (`scope` of the decision body):
 * - `once` (default): this call, with exactly this input, once.
 * - `session`: also every later call of the same tool with the same input (same digest) in the
 *   same session of the same agent.
 * - `session_tool`: every later call of the same tool in that session, whatever its input.
 * Only approvals of tool approvals that a session asked for can have a wider scope than `once`.
 */
export const ApprovalScopeSchema = z.enum(['once', 'session', 'session_tool']).meta({
  id: 'ApprovalScope',
  description: 'once (default) | session (same tool and input for the rest of the session) | session_tool (the tool, any input).',
});
export type ApprovalScope = z.infer<typeof ApprovalScopeSchema>;

/** A grant id: `grant_` and 32 lowercase hex characters. */
export const ToolGrantIdSchema = z
  .string()
  .regex(/^grant_[0-9a-f]{32}$/, 'must be "grant_" followed by 32 lowercase hex characters')
  .meta({ id: 'ToolGrantId', description: 'A session grant id: grant_ + 32 hex characters.' });

const DigestSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256 digest (64 characters)');

/**
 * A session-wide approval: the agent may call `tool` in session `session_id` without asking again
 * — with exactly the input of digest `input_digest` (`scope: 'session'`, the input the person
 * approved: the modified one when they modified it), or with any input (`scope: 'session_tool'`).
 * It records who granted it, when and from which request, how many calls it allowed (`uses`),
 * and, once revoked, who revoked it. `expires_at`: it lives as long as a session (the gateway's session TTL), counted again from each
 * use; revoked grants are kept for the record until then.
 */
export const ToolGrantSchema = z
  .strictObject({
    grant_id: ToolGrantIdSchema,
    agent: IdSchema,
    session_id: IdSchema,
    tool: ShortStringSchema,
    scope: z.enum(['session', 'session_tool']),
    input_digest: DigestSchema.optional(),
    /** The approved input, for people reading the grant (`scope: 'session'`). */
    input: JsonObjectSchema.optional(),
    request_id: RequestIdSchema,
    /**
     * The rules that asked for the approval the grant came from (its request's `rules`): the grant
     * covers only calls no other rule asks about, so a grant given for what one rule asks never
     * lets a call through another, stricter rule.
     */
    rules: boundedArray(ShortStringSchema, MAX_APPROVAL_RULES).optional(),
    granted_by: IdSchema,
    granted_at: TimestampSchema,
    expires_at: TimestampSchema,
    revoked_by: IdSchema.optional(),
    revoked_at: TimestampSchema.optional(),
    /**
     * How many calls the grant has allowed, counted in Redis by the same script that checks it is
     * not revoked; a revoked grant's count is final (the revocation is ordered after every use).
     */
    uses: z.int().nonnegative().optional(),
  })
  .superRefine((grant, ctx) => {
    if (grant.scope === 'session' && grant.input_digest === undefined) {
      ctx.addIssue({ code: 'custom', path: ['input_digest'], message: 'a grant for one input names its digest' });
    }
    if (grant.scope === 'session_tool' && grant.input_digest !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['input_digest'], message: 'a grant for any input of the tool names no digest' });
    }
    if ((grant.revoked_by === undefined) !== (grant.revoked_at === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['revoked_at'], message: 'a revoked grant records who revoked it and when' });
    }
  })
  .meta({ id: 'ToolGrant', description: 'A session-wide tool approval: agent, session, tool, input pattern, who granted and revoked it.' });
export type ToolGrant = z.infer<typeof ToolGrantSchema>;

/**
 * Whether `grant` allows a call of `tool` with input digest `digest` by `agent` in `session` at
 * `now` (ISO 8601), when the rules `rules` ask for approval of it: every one of them must be among
 * the rules the grant was given for (a grant recorded before grants named their rules covers
 * nothing).
 */
export function grantCovers(
  grant: ToolGrant,
  call: { agent: string; session_id: string; tool: string; input_digest: string; rules: readonly string[] },
  now: string,
): boolean {
  if (grant.revoked_at !== undefined || Date.parse(grant.expires_at) <= Date.parse(now)) return false;
  if (grant.agent !== call.agent || grant.session_id !== call.session_id || grant.tool !== call.tool) return false;
  const given = grant.rules ?? [];
  if (!call.rules.every((rule) => given.includes(rule))) return false;
  return grant.scope === 'session_tool' || grant.input_digest === call.input_digest;
}

/** The most grants one list call returns. */
export const MAX_GRANT_LIST = 500;

/**
 * Query of `GET /v1/operator/grants`: the grants of an agent, of a session, or (neither) all
 * grants that have not expired, revoked ones included, newest first.
 */
export const GrantListQuerySchema = z
  .strictObject({
    agent: IdSchema.optional(),
    session: IdSchema.optional(),
  })
  .meta({ id: 'GrantListQuery', description: 'Filters of GET /v1/operator/grants: agent, session.' });
export type GrantListQuery = z.infer<typeof GrantListQuerySchema>;

/** `GET /v1/operator/grants`. */
export const GrantListResponseSchema = z
  .strictObject({ grants: boundedArray(ToolGrantSchema, MAX_GRANT_LIST) })
  .meta({ id: 'GrantListResponse', description: 'Session grants, newest first.' });
export type GrantListResponse = z.infer<typeof GrantListResponseSchema>;

/** `DELETE /v1/operator/grants/:grantId`: `revoked` now, or `already_revoked` (by whoever `revoked_by` names). */
export const GrantRevokeResponseSchema = z
  .strictObject({ outcome: z.enum(['revoked', 'already_revoked']), grant: ToolGrantSchema })
  .meta({ id: 'GrantRevokeResponse', description: 'The revoked grant.' });
export type GrantRevokeResponse = z.infer<typeof GrantRevokeResponseSchema>;
