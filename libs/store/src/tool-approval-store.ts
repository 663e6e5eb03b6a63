/**
 * Tool approvals that rules open (hooks.yaml `require_approval`), on top of the RequestStore:
 * opening one per hook, finding it again by the call it was asked for, and using a settled one
 * exactly once.
 *
 * Guarantees:
 * - `open` is idempotent per hook: the request id is derived from the hook id, so a worker that
 *   evaluates the same hook again finds the request it opened. A request under that id with other
 *   terms (someone opened it first, with another input or another reason) is reported as a
 *   conflict, never used.
 * - `consume` is atomic: of all hooks presenting one settled request, exactly one holds it; the
 *   same hook asking again gets the same answer (a retried job decides the same way).
 * - An approval binds to exactly what the person saw: {@link approvalBindsTo} compares the agent,
 *   the session, the tool and the SHA-256 of the canonical JSON of the input, recomputed from the
 *   stored input rather than trusting the stored digest.
 */
import { createHash } from 'node:crypto';
import { createRequest, toolApprovalRequestId, type ApprovalOnExpiry, type JsonObject, type ProtocolState } from '@ahp/protocol';
import type { RequestStore } from './contracts.js';
import { StoreInputError } from './errors.js';
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

/** What {@link ToolApprovalStore.open} needs: the hook, the call, and the rule's terms. */
export interface OpenToolApprovalInput {
  /** The hook that asks (a UUID); the request id is derived from it. */
  readonly hookId: string;
  readonly call: ToolCall;
  readonly deadlineMs: number;
  readonly onExpiry: ApprovalOnExpiry;
  /** Shown to the operator: the rule's message. */
  readonly reason?: string;
  /** `<trigger>/<oracle>/<rule id>`. */
  readonly rule?: string;
  /** Epoch milliseconds. */
  readonly now: number;
}

/** What {@link ToolApprovalStore.open} found: the request (new or opened earlier for this hook), or a conflict. */
export type OpenToolApprovalResult =
  | { readonly outcome: 'opened' | 'found'; readonly state: ProtocolState }
  /** The derived id is taken by a request that does not bind to this call; it must not be used. */
  | { readonly outcome: 'conflict'; readonly state?: ProtocolState };

/** What {@link ToolApprovalStore.consume} answers. */
export type ConsumeToolApprovalResult =
  /** This hook holds the settled request (the first to ask, or the same hook again). */
  | { readonly outcome: 'consumed' }
  /** Another hook used it first. */
  | { readonly outcome: 'taken'; readonly by: string }
  | { readonly outcome: 'pending' }
  | { readonly outcome: 'missing' };

/** See the module comment. */
export interface ToolApprovalStore {
  open(input: OpenToolApprovalInput): Promise<OpenToolApprovalResult>;
  /** The latest request a rule opened for this call in its session, when it still binds to it. */
  findForCall(call: ToolCall): Promise<ProtocolState | null>;
  /** A request's state, or null. */
  get(requestId: string): Promise<ProtocolState | null>;
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
    a.rule === b.rule
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

  async function get(requestId: string): Promise<ProtocolState | null> {
    return (await requests.get(requestId))?.state ?? null;
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
        },
      });
      const created = await requests.create(state, now);
      if ('outcome' in created) return { outcome: 'conflict' };
      if (!created.created && !sameTerms(created.state, state)) return { outcome: 'conflict', state: created.state };
      await indexToolApproval.run(redis, [keys.toolApprovalCalls(call.sessionId)], [callField(call, digest), state.request_id, input.deadlineMs + indexTtlMs]);
      return { outcome: created.created ? 'opened' : 'found', state: created.state };
    },

    async findForCall(call) {
      const digest = toolInputDigest(call.input);
      const requestId = await redis.hGet(keys.toolApprovalCalls(call.sessionId), callField(call, digest));
      if (requestId === null || requestId === undefined) return null;
      const state = await get(requestId);
      return state !== null && approvalBindsTo(state, call, digest) ? state : null;
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
        case 'missing':
          return { outcome: 'missing' };
        default:
          throw badReply(key, consumeToolApproval.name, reply);
      }
    },

    async settleIfDue(state, now) {
      if (state.status !== 'pending' || state.deadline === undefined || Date.parse(state.deadline) > now) return state;
      await requests.expireDue(epoch('now', now));
      return (await get(state.request_id)) ?? state;
    },
  };
}
