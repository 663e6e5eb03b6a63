/**
 * What the MCP client (and its model) reads for each outcome of a governed tool call, and the
 * redaction of upstream results. Pure, so the mapping is tested without a gateway;
 * docs/mcp-gateway.md has the same table.
 *
 * Every refusal is a `CallToolResult` with `isError: true`, not a JSON-RPC error: the MCP
 * specification reserves protocol errors for malformed requests, and a tool error is what a client
 * hands to its model, so the model reads the reason and the way to resolve it. `_meta["ahp/decision"]`
 * carries the same facts for programs: why, which signals, and the pending approval request.
 * The rate limits are the exception: a request over one is the client's to retry later, not the
 * model's to reason about, so it is a JSON-RPC error (code {@link MCP_REFUSED_CODE}, the AHP code
 * and `retry_after_ms` in `data.ahp`) — the message bucket's at the door (mcp-intake.ts), the
 * new-session limit's for a call ({@link McpRequestRefused}).
 */
import { REDACTED, awaitingApproval, redactSecrets, type AhpError, type FailurePolicy, type HookDecision, type JsonObject } from '@ahp/protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { advice, approvalWaitReason, blockReason } from '../coding-agents/decision-text.js';

/** The `_meta` key under which a governed result says what AHP decided. */
export const MCP_DECISION_META_KEY = 'ahp/decision';

/** The JSON-RPC error code of AHP's refusals of a request (the implementation-defined server error range). */
export const MCP_REFUSED_CODE = -32000;

/** The `data` of a JSON-RPC error for an AHP refusal: `{ ahp: { code, retry_after_ms? } }`. */
export function rpcErrorData(error: AhpError): JsonObject {
  return { ahp: { code: error.code, ...(error.retry_after_ms === undefined ? {} : { retry_after_ms: error.retry_after_ms }) } };
}

/**
 * Thrown by a request handler to refuse the request: the SDK's server answers it as the
 * request's JSON-RPC error (its `code`, `message` and `data`), with the request's id.
 */
export class McpRequestRefused extends Error {
  override readonly name = 'McpRequestRefused';
  readonly code = MCP_REFUSED_CODE;
  readonly data: JsonObject;

  constructor(error: AhpError) {
    super(error.message);
    this.data = rpcErrorData(error);
  }
}

/** Why a call was refused, as the `_meta` says it. */
export type McpRefusalKind = 'blocked' | 'awaiting_approval' | 'approval_rejected' | 'approval_expired' | 'failure_policy' | 'upstream_error' | 'upstream_timeout' | 'result_withheld' | 'not_available' | 'too_many_calls';

/** The decision's facts for `_meta`. */
function decisionMeta(decision: HookDecision | undefined, kind: McpRefusalKind | 'allowed', extra: JsonObject = {}): JsonObject {
  if (decision === undefined) return { outcome: kind, ...extra };
  return {
    outcome: kind,
    hook_id: decision.hook_id,
    trigger: decision.trigger,
    intensity: decision.intensity,
    decided_by: decision.decided_by,
    signal_types: decision.signals.map((signal) => signal.header.type),
    ...(decision.error === undefined ? {} : { error: { code: decision.error.code, message: decision.error.message } }),
    ...extra,
  };
}

/** A tool error with `text` for the model and the decision in `_meta`. */
export function toolError(text: string, kind: McpRefusalKind, decision?: HookDecision, extra: JsonObject = {}): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true, _meta: { [MCP_DECISION_META_KEY]: decisionMeta(decision, kind, extra) } };
}

/** The refusal kind of a blocking decision: an approval outcome names itself. */
function refusalKind(decision: HookDecision): McpRefusalKind {
  if (decision.decided_by === 'failure_policy') return 'failure_policy';
  const types = new Set(decision.signals.map((signal) => signal.header.type));
  if (types.has('approval-rejected')) return 'approval_rejected';
  if (types.has('approval-expired')) return 'approval_expired';
  return 'blocked';
}

/**
 * The tool error for a `pre-tool-use` decision that does not allow the call. A call waiting for an
 * operator is told to come back with the identical call ({@link approvalWaitReason}); the retry is
 * matched to the request by agent, session, tool and input digest, so nothing but the same call
 * can use the approval.
 */
export function refusalResult(decision: HookDecision): CallToolResult {
  const waiting = awaitingApproval(decision);
  if (waiting !== undefined) {
    return toolError(approvalWaitReason(waiting), 'awaiting_approval', decision, {
      approval: { request_id: waiting.request_id, deadline: waiting.deadline, status: 'pending' },
    });
  }
  return toolError(blockReason(decision), refusalKind(decision), decision);
}

/**
 * The upstream's result as the model receives it: the decisions' advice added as text, the
 * decision in `_meta` (with `extra`, e.g. `inspected: "partial"` for a result let through fail-open
 * that the post-tool-use rules saw only part of).
 */
export function governedResult(result: CallToolResult, pre: HookDecision, post: HookDecision | undefined, extra: JsonObject = {}): CallToolResult {
  const notes = [advice(pre), post === undefined ? undefined : advice(post)].filter((text): text is string => text !== undefined);
  if (pre.modifications.length > 0) notes.unshift(`AHP adjusted this call: ${pre.modifications.map((m) => `${m.target}: ${m.reason}`).join('; ')}`);
  const content = notes.length === 0 ? result.content : [...result.content, { type: 'text' as const, text: notes.join('\n') }];
  const meta: JsonObject = { ...decisionMeta(pre, 'allowed', extra), ...(post === undefined ? {} : { post: decisionMeta(post, 'allowed') }) };
  return { ...result, content, _meta: { ...(result._meta ?? {}), [MCP_DECISION_META_KEY]: meta } };
}

/** Failure-policy causes that mean "could not decide" (the tool's policy applies), not "refused" (always closed). */
const AVAILABILITY_CODES: ReadonlySet<string> = new Set(['E_TIMEOUT', 'E_UNAVAILABLE', 'E_SHUTTING_DOWN']);

/**
 * `decision` with the tool's failure policy (`tools.settings.<tool>.failure_policy`, else the
 * server's) in place of the trigger's, when the decision could not be made: no worker answered in
 * time, Redis was down, the gateway was draining. Refusals of the request itself (over the context
 * limits, a plan pending, rate limited) stay closed whatever the policy: an agent could otherwise
 * cause them to get a call through.
 */
export function withToolFailurePolicy(decision: HookDecision, policy: FailurePolicy): HookDecision {
  if (decision.decided_by !== 'failure_policy' || decision.error === undefined || !AVAILABILITY_CODES.has(decision.error.code)) return decision;
  const allowed = policy === 'fail_open';
  if (decision.allowed === allowed) return decision;
  return { ...decision, allowed, intensity: allowed ? null : 'block' };
}

/** Compiles a server's configured redaction patterns once (validated by the config schema). */
export function compilePatterns(sources: readonly string[]): RegExp[] {
  return sources.map((source) => new RegExp(source, 'g'));
}

/** `text` with the built-in credential patterns and `patterns` replaced by {@link REDACTED}. */
function redactString(text: string, patterns: readonly RegExp[]): string {
  let out = redactSecrets(text, { credentialsInText: true });
  for (const pattern of patterns) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, REDACTED);
  }
  return out;
}

/** Every string of `value` redacted (iterative, so a deeply nested result cannot overflow the stack). */
function redactDeep(value: unknown, patterns: readonly RegExp[]): unknown {
  // Secret-named keys (`api_key`, `password`, …) and credentials inside strings first, as logs are.
  const keyed = redactSecrets(value, { credentialsInText: true });
  if (patterns.length === 0) return keyed;
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') return redactString(node, patterns);
    if (depth > 64 || node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1));
    return Object.fromEntries(Object.entries(node as Record<string, unknown>).map(([key, item]) => [key, walk(item, depth + 1)]));
  };
  return walk(keyed, 0);
}

/**
 * The result with secrets blanked out before anything else (the oracles, the model) sees it:
 * secret-named fields, credentials in text (tokens, keys, `Bearer …`, URL passwords) and the
 * server's configured patterns, in text content, structured content and embedded resources.
 * Binary content (images, audio, blobs) is passed as is.
 */
export function redactResult(result: CallToolResult, patterns: readonly RegExp[]): CallToolResult {
  const content = result.content.map((item) => {
    if (item.type === 'text') return { ...item, text: redactString(item.text, patterns) };
    if (item.type === 'resource' && 'text' in item.resource) return { ...item, resource: { ...item.resource, text: redactString(item.resource.text, patterns) } };
    return item;
  });
  const redacted: CallToolResult = { ...result, content };
  if (result.structuredContent !== undefined) redacted.structuredContent = redactDeep(result.structuredContent, patterns) as Record<string, unknown>;
  return redacted;
}

/** The text of a result, for `tool.output` of the `post-tool-use` hook (bounded by the caller). */
export function resultText(result: CallToolResult): string {
  return result.content
    .map((item) => {
      if (item.type === 'text') return item.text;
      if (item.type === 'resource' && 'text' in item.resource) return item.resource.text;
      return `[${item.type}]`;
    })
    .join('\n');
}
