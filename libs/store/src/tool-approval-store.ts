/**
 * Tool approvals that rules open (hooks.yaml `require_approval`), on top of the RequestStore:
 * opening one per hook, finding it again by the call it was asked for, and using a settled one
 * exactly once.
 *
 * Guarantees:
 * - `open` is idempotent per hook: the request id is derived from the hook id, so a worker that
 *   evaluates the same hook again finds the request it opened. A request under that id with other
 *   terms (someone opened it first, with another input or another reason) is reported as a
 *   conflict, never used. An agent at the request store's cap of pending requests gets
 *   `too_many` (counted atomically with the write), and nothing is opened.
 * - `consume` is atomic: of all hooks presenting one settled request, exactly one holds it; the
 *   same hook asking again gets the same answer (a retried job decides the same way). A request
 *   whose session grant was revoked is never used again: the revocation marks the request
 *   (`grant_revoked`) and the consuming script checks that mark in the same script.
 * - An approval binds to exactly what the person saw: {@link approvalBindsTo} compares the agent,
 *   the session, the tool and the SHA-256 of the canonical JSON of the input, recomputed from the
 *   stored input rather than trusting the stored digest.
 * - An approval satisfies rules only as {@link approvalRefusal} says: the request those rules
 *   opened (never one an agent opened), addressed to operators, settled by an operator, bound to
 *   the call, and asked for by the same rules on the same terms.
 */
import { createHash } from 'node:crypto';
import {
  approvalRulesOf,
  createRequest,
  openedByRule,
  toolApprovalRequestId,
  type ApprovalOnExpiry,
  type JsonObject,
  type ProtocolState,
  type RequestActor,
  type RequestHistoryEntry,
} from '@ahp/protocol';
import type { RequestStore } from './contracts.js';
import { StoreInputError, TooManyRequestsError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply, stringAt } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { CONSUME_TOOL_APPROVAL_LUA, INDEX_TOOL_APPROVAL_LUA } from './scripts/tool-approval.lua.js';
import { canonicalJson } from './validate.js';

const consumeToolApproval = new LuaScript('consume-tool-approval', CONSUME_TOOL_APPROVAL_LUA);
const indexToolApproval = new LuaScript('index-tool-approval', INDEX_TOOL_APPROVAL_LUA);

/** Default of {@link ToolApprovalStoreOptions.indexTtlMs}: 24 hours. */
export const DEFAULT_TOOL_APPROVAL_INDEX_TTL_MS = 24 * 3_600_000;

/** SHA-256 (lowercase hex) of the canonical JSON of a tool input (keys sorted, no whitespace): `input_digest`. */
export function toolInputDigest(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input), 'utf8').digest('hex');
}

/** One tool call as an approval binds to it. */
export interface ToolCall {
  readonly agentId: string;
  readonly sessionId: string;
  readonly tool: string;
  readonly input: JsonObject;
}

/** Whether `state` is a tool approval of exactly `call`: same agent (sender), session, tool and input. */
export function approvalBindsTo(state: ProtocolState, call: ToolCall, digest: string = toolInputDigest(call.input)): boolean {
  if (state.type !== 'tool_approval') return false;
  const { payload } = state;
  return (
    state.sender === call.agentId &&
    payload.session_id === call.sessionId &&
    payload.tool === call.tool &&
    payload.input_digest === digest &&
    toolInputDigest(payload.input) === digest
  );
}

/** What the rules asking about a call require of an approval, beyond binding to the call. */
export interface ApprovalTerms {
  /** The identity of every rule asking (`approvalRuleOf`), in any order. */
  readonly rules: readonly string[];
  readonly onExpiry: ApprovalOnExpiry;
}

/** A tool approval as the worker judges it: its state, and who settled it (from its history). */
export interface StoredToolApproval {
  readonly state: ProtocolState;
  /** Who settled it (approved, rejected, expired, cancelled); absent while it is pending. */
  readonly settledBy?: RequestActor;
}

/** The actor of the history entry that settled the request (its event is the final status). */
export function settledByOf(state: ProtocolState, history: readonly RequestHistoryEntry[]): RequestActor | undefined {
  if (state.status === 'pending') return undefined;
  return [...history].reverse().find((entry) => entry.event === state.status)?.actor;
}

function sortedRules(rules: readonly string[]): string[] {
  return [...new Set(rules)].sort();
}

/**
 * Why `found` does not satisfy the rules asking about `call` now, or undefined when it does. It
 * must be:
 * 1. a tool approval a rule opened for a hook ({@link openedByRule}: the derived id, addressed to
 *    operators) — never one an agent opened, whoever it was addressed to or approved by;
 * 2. for this very call: same agent, session, tool and input digest ({@link approvalBindsTo});
 * 3. asked for by the same rules on the same terms (`on_expiry`), so an approval a lenient rule
 *    obtained (or let expire into an allow) never satisfies another, stricter rule;
 * 4. when decided (approved or rejected), decided by an operator: the gateway lets only operators
 *    with the approver role decide requests addressed to operators, and the history says who did.
 * Single use and revocation are the consuming script's part ({@link ToolApprovalStore.consume}).
 */
export function approvalRefusal(found: StoredToolApproval, call: ToolCall, terms: ApprovalTerms, digest: string = toolInputDigest(call.input)): string | undefined {
  const { state } = found;
  if (state.type !== 'tool_approval') return `${state.request_id} is a ${state.type} request, not a tool approval`;
  if (!openedByRule(state)) return `${state.request_id} is not a request a rule opened for the operators (an agent opened it)`;
  if (!approvalBindsTo(state, call, digest)) return `${state.request_id} was asked for another call (agent, session, tool or input differ)`;
  const asked = sortedRules(approvalRulesOf(state));
  const asking = sortedRules(terms.rules);
  if (asked.length === 0 || asked.join('\n') !== asking.join('\n')) {
    return `${state.request_id} was asked for by other rules (${asked.join(', ') || 'none'}) than the ones asking now (${asking.join(', ')})`;
  }
  if ((state.payload.on_expiry ?? 'reject') !== terms.onExpiry) {
    return `${state.request_id} was asked for on other terms (on_expiry ${state.payload.on_expiry ?? 'reject'}, now ${terms.onExpiry})`;
  }
  if ((state.status === 'approved' || state.status === 'rejected') && found.settledBy?.kind !== 'operator') {
    return `${state.request_id} was ${state.status} by ${found.settledBy === undefined ? 'nobody on record' : `${found.settledBy.kind} ${found.settledBy.id}`}, not by an operator`;
  }
  return undefined;
}

/** What {@link ToolApprovalStore.open} needs: the hook, the call, and the rule's terms. */
export interface OpenToolApprovalInput {
  /** The hook that asks (a UUID); the request id is derived from it. */
  readonly hookId: string;
  readonly call: ToolCall;
  readonly deadlineMs: number;
  readonly onExpiry: ApprovalOnExpiry;
  /** Shown to the operator: the rule's message. */
  readonly reason?: string;
  /** `<trigger>/<oracle>/<rule id>` of the first rule asking (shown to operators). */
  readonly rule?: string;
  /** Every rule asking (`approvalRuleOf`); the approval satisfies only these rules. */
  readonly rules: readonly string[];
  /** Epoch milliseconds. */
  readonly now: number;
}

/** What {@link ToolApprovalStore.open} found: the request (new or opened earlier for this hook), or a conflict. */
export type OpenToolApprovalResult =
  | { readonly outcome: 'opened' | 'found'; readonly state: ProtocolState }
  /** The derived id is taken by a request that does not bind to this call; it must not be used. */
  | { readonly outcome: 'conflict'; readonly state?: ProtocolState }
  /** The agent has the most pending requests it may have (the request store's `maxPendingPerSender`): nothing was opened. */
  | { readonly outcome: 'too_many'; readonly max: number };

/** What {@link ToolApprovalStore.consume} answers. */
export type ConsumeToolApprovalResult =
  /** This hook holds the settled request (the first to ask, or the same hook again). */
  | { readonly outcome: 'consumed' }
  /** Another hook used it first. */
  | { readonly outcome: 'taken'; readonly by: string }
  /** It was approved for the session and that grant was revoked: it is never used again. */
  | { readonly outcome: 'revoked'; readonly grantId: string }
  | { readonly outcome: 'pending' }
  | { readonly outcome: 'missing' };

/** See the module comment. */
export interface ToolApprovalStore {
  open(input: OpenToolApprovalInput): Promise<OpenToolApprovalResult>;
  /** The latest request a rule opened for this call in its session, when it still binds to it. */
  findForCall(call: ToolCall): Promise<StoredToolApproval | null>;
  /** A request's state and who settled it, or null. */
  get(requestId: string): Promise<StoredToolApproval | null>;
  /** Marks a settled request as used by `hookId`; see {@link ConsumeToolApprovalResult}. */
  consume(requestId: string, hookId: string): Promise<ConsumeToolApprovalResult>;
  /**
   * `state` as it stands once every request due at `now` is expired: a pending request past its
   * deadline is expired here rather than waiting for a gateway's sweep, so the agent that
   * re-sends at its deadline gets the expiry, not another wait.
   */
  settleIfDue(state: ProtocolState, now: number): Promise<ProtocolState>;
}

/** Options of {@link createToolApprovalStore}. */
export interface ToolApprovalStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
  requests: RequestStore;
  /**
   * How long the per-session index keeps a request findable by its call, after its deadline.
   * @defaultValue {@link DEFAULT_TOOL_APPROVAL_INDEX_TTL_MS} (24 h)
   */
  indexTtlMs?: number;
}

/**
 * Whether a request found under a hook's derived id is the one this store opened for that hook:
 * it binds to the call and says what the rule says (hook, session, expiry, reason, rule), so a
 * request someone else planted under that id (with a misleading reason, say) is never used.
 */
function sameTerms(found: ProtocolState, wanted: ProtocolState): boolean {
  if (found.type !== 'tool_approval' || wanted.type !== 'tool_approval') return false;
  const a = found.payload;
  const b = wanted.payload;
  return (
    found.sender === wanted.sender &&
    a.tool === b.tool &&
    a.input_digest === b.input_digest &&
    toolInputDigest(a.input) === b.input_digest &&
    a.hook_id === b.hook_id &&
    a.session_id === b.session_id &&
    a.on_expiry === b.on_expiry &&
    a.reason === b.reason &&
    a.rule === b.rule &&
    sortedRules(approvalRulesOf(found)).join('\n') === sortedRules(approvalRulesOf(wanted)).join('\n')
  );
}

/** The index field of a call: SHA-256 of agent, tool and input digest (tool names may hold anything). */
function callField(call: ToolCall, digest: string): string {
  return createHash('sha256').update(`${call.agentId}\n${call.tool}\n${digest}`, 'utf8').digest('hex');
}

function epoch(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new StoreInputError(`${name} must be epoch milliseconds, got ${value}`);
  return value;
}

/** Creates the store; see {@link ToolApprovalStore}. */
export function createToolApprovalStore(options: ToolApprovalStoreOptions): ToolApprovalStore {
  const { redis, keys, requests } = options;
  const indexTtlMs = options.indexTtlMs ?? DEFAULT_TOOL_APPROVAL_INDEX_TTL_MS;

  async function get(requestId: string): Promise<StoredToolApproval | null> {
    const found = await requests.get(requestId);
    if (found === null) return null;
    const settledBy = settledByOf(found.state, found.history);
    return settledBy === undefined ? { state: found.state } : { state: found.state, settledBy };
  }

  return {
    async open(input) {
      const now = epoch('now', input.now);
      if (!Number.isSafeInteger(input.deadlineMs) || input.deadlineMs <= 0) {
        throw new StoreInputError(`deadlineMs must be a positive integer, got ${input.deadlineMs}`);
      }
      const { call } = input;
      const digest = toolInputDigest(call.input);
      const state = createRequest({
        requestId: toolApprovalRequestId(input.hookId),
        sender: call.agentId,
        target: { kind: 'operators' },
        now: new Date(now).toISOString(),
        deadline: new Date(now + input.deadlineMs).toISOString(),
        type: 'tool_approval',
        payload: {
          tool: call.tool,
          input: call.input,
          input_digest: digest,
          hook_id: input.hookId,
          session_id: call.sessionId,
          on_expiry: input.onExpiry,
          ...(input.reason === undefined ? {} : { reason: input.reason }),
          ...(input.rule === undefined ? {} : { rule: input.rule }),
          rules: sortedRules(input.rules),
        },
      });
      let created;
      try {
        created = await requests.create(state, now);
      } catch (error) {
        if (error instanceof TooManyRequestsError) return { outcome: 'too_many', max: error.max };
        throw error;
      }
      if ('outcome' in created) return { outcome: 'conflict' };
      if (!created.created && !sameTerms(created.state, state)) return { outcome: 'conflict', state: created.state };
      await indexToolApproval.run(redis, [keys.toolApprovalCalls(call.sessionId)], [callField(call, digest), state.request_id, input.deadlineMs + indexTtlMs]);
      return { outcome: created.created ? 'opened' : 'found', state: created.state };
    },

    async findForCall(call) {
      const digest = toolInputDigest(call.input);
      const requestId = await redis.hGet(keys.toolApprovalCalls(call.sessionId), callField(call, digest));
      if (requestId === null || requestId === undefined) return null;
      const found = await get(requestId);
      return found !== null && approvalBindsTo(found.state, call, digest) ? found : null;
    },

    get,

    async consume(requestId, hookId) {
      const key = keys.request(requestId);
      const reply = arrayReply(await consumeToolApproval.run(redis, [key], [hookId]), key, consumeToolApproval.name);
      switch (stringAt(reply, 0, key, consumeToolApproval.name)) {
        case 'consumed': {
          const holder = stringAt(reply, 1, key, consumeToolApproval.name);
          return holder === hookId ? { outcome: 'consumed' } : { outcome: 'taken', by: holder };
        }
        case 'pending':
          return { outcome: 'pending' };
        case 'revoked':
          return { outcome: 'revoked', grantId: stringAt(reply, 1, key, consumeToolApproval.name) };
        case 'missing':
          return { outcome: 'missing' };
        default:
          throw badReply(key, consumeToolApproval.name, reply);
      }
    },

    async settleIfDue(state, now) {
      if (state.status !== 'pending' || state.deadline === undefined || Date.parse(state.deadline) > now) return state;
      await requests.expireDue(epoch('now', now));
      return (await get(state.request_id))?.state ?? state;
    },
  };
}
