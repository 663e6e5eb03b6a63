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
import { REDACTED, awaitingApproval, isSecretKey, redactSecrets, type AhpError, type FailurePolicy, type HookDecision, type JsonObject } from '@ahp/protocol';
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
 * The content item types the gateway knows how to redact and show to the rules. An item of another
 * type (a later protocol revision, an SDK that parses more) is redacted as data and shown to the
 * rules as JSON, but the gateway cannot tell how a client renders it: the result counts as not
 * fully inspected ({@link unknownContentTypes}).
 */
const KNOWN_CONTENT_TYPES: ReadonlySet<string> = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);

/** A content item as it may arrive: one of the known types, or another object. */
type ContentItem = CallToolResult['content'][number];
type Annotations = NonNullable<ContentItem['annotations']>;

/** An ISO 8601 timestamp, the only form `annotations.lastModified` may take (no room for words). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T[0-9:.]{5,18}(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * A URI with its credentials blanked: those {@link redactString} finds (a URL password, token
 * formats, `?token=…`), then the whole userinfo (`user@`, a token used as the user name) and the
 * value of every query parameter whose name {@link isSecretKey} calls a secret (`?client_secret=…`,
 * `&X-Api-Key=…`). A string scan, not `URL`, so nothing else of the URI is re-encoded.
 */
function redactUri(uri: string, patterns: readonly RegExp[]): string {
  let out = redactString(uri, patterns);
  const scheme = out.indexOf('://');
  if (scheme > 0) {
    const hostStart = scheme + 3;
    let authorityEnd = out.slice(hostStart).search(/[/?#]/);
    authorityEnd = authorityEnd < 0 ? out.length : hostStart + authorityEnd;
    const at = out.lastIndexOf('@', authorityEnd - 1);
    if (at >= hostStart) out = `${out.slice(0, hostStart)}${REDACTED}${out.slice(at)}`;
  }
  const query = out.indexOf('?');
  if (query < 0) return out;
  const hash = out.indexOf('#', query);
  const end = hash < 0 ? out.length : hash;
  const params = out
    .slice(query + 1, end)
    .split('&')
    .map((param) => {
      const eq = param.indexOf('=');
      if (eq <= 0) return param;
      let name = param.slice(0, eq);
      try {
        name = decodeURIComponent(name);
      } catch {
        // Not percent-encoding: checked as written.
      }
      return isSecretKey(name) ? `${param.slice(0, eq + 1)}${REDACTED}` : param;
    });
  return `${out.slice(0, query + 1)}${params.join('&')}${out.slice(end)}`;
}

/** The annotations a client acts on, checked: `audience` roles, `priority` 0–1, a `lastModified` timestamp. Anything else is dropped. */
function cleanAnnotations(value: unknown): Annotations | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const source = value as Record<string, unknown>;
  const out: Annotations = {};
  if (Array.isArray(source['audience'])) out.audience = source['audience'].filter((role): role is 'user' | 'assistant' => role === 'user' || role === 'assistant');
  const priority = source['priority'];
  if (typeof priority === 'number' && priority >= 0 && priority <= 1) out.priority = priority;
  const lastModified = source['lastModified'];
  if (typeof lastModified === 'string' && TIMESTAMP.test(lastModified)) out.lastModified = lastModified;
  return Object.keys(out).length === 0 ? undefined : out;
}

/** `{ key: value }` when `value` is a string (redacted with `redact`), else nothing: for optional fields. */
function optional(key: string, value: unknown, redact: (text: string) => string): Record<string, string> {
  return typeof value === 'string' ? { [key]: redact(value) } : {};
}

/**
 * One content item rebuilt from the fields the gateway knows, each text-bearing one redacted;
 * `_meta`, `icons` and unknown fields are dropped (programs' metadata and UI hints the gateway
 * cannot judge, so the model never gets them). An item of an unknown type is redacted whole as
 * data, `_meta` dropped.
 */
function redactItem(item: ContentItem, patterns: readonly RegExp[]): ContentItem {
  const text = (value: string) => redactString(value, patterns);
  const uri = (value: string) => redactUri(value, patterns);
  const annotations = cleanAnnotations(item.annotations);
  const annotated = annotations === undefined ? {} : { annotations };
  switch (item.type) {
    case 'text':
      return { type: 'text', text: text(item.text), ...annotated };
    case 'image':
    case 'audio':
      return { type: item.type, data: item.data, mimeType: text(item.mimeType), ...annotated };
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: uri(item.uri),
        name: text(item.name),
        ...optional('title', item.title, text),
        ...optional('description', item.description, text),
        ...optional('mimeType', item.mimeType, text),
        ...(typeof item.size === 'number' ? { size: item.size } : {}),
        ...annotated,
      };
    case 'resource': {
      const resource = item.resource;
      const common = { uri: uri(resource.uri), ...optional('mimeType', resource.mimeType, text) };
      return { type: 'resource', resource: 'text' in resource ? { ...common, text: text(resource.text) } : { ...common, blob: resource.blob }, ...annotated };
    }
    default: {
      const { _meta: _dropped, ...rest } = item as Record<string, unknown>;
      return redactDeep(rest, patterns) as ContentItem;
    }
  }
}

/**
 * The result with secrets blanked out before anything else (the oracles, the model) sees it:
 * secret-named fields, credentials in text (tokens, keys, `Bearer …`, URL passwords) and the
 * server's configured patterns, in every text-bearing field — text, embedded text resources, the
 * names, titles, descriptions and MIME types of links and resources, structured content — and
 * credentials in every URI (userinfo, secret-named query parameters). The result is rebuilt from
 * what the gateway knows: `_meta` (of the result and of its items), `icons` and unknown fields are
 * dropped. Binary data (images, audio, blobs) is passed as is.
 */
export function redactResult(result: CallToolResult, patterns: readonly RegExp[]): CallToolResult {
  const redacted: CallToolResult = { content: (Array.isArray(result.content) ? result.content : []).map((item) => redactItem(item, patterns)) };
  if (typeof result.isError === 'boolean') redacted.isError = result.isError;
  if (result.structuredContent !== undefined) redacted.structuredContent = redactDeep(result.structuredContent, patterns) as Record<string, unknown>;
  return redacted;
}

/** The types of the result's content items that the gateway does not know (see {@link KNOWN_CONTENT_TYPES}), each once. */
export function unknownContentTypes(result: CallToolResult): string[] {
  return [...new Set(result.content.map((item) => String(item.type)).filter((type) => !KNOWN_CONTENT_TYPES.has(type)))];
}

/** `name=value` for each field that has a value, for an item's label. */
function label(kind: string, fields: Record<string, string | undefined>): string {
  const parts = Object.entries(fields).flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${value}`]));
  return `[${[kind, ...parts].join(' ')}]`;
}

/**
 * The text of a result, for `tool.output` of the `post-tool-use` hook (bounded by the caller):
 * every text-bearing field the model can receive. A text item is its text; any other item a label
 * with its fields (`[resource_link uri=… name=… title=… mimeType=…]`) followed by its free text (a
 * link's description, a text resource's text); an item of an unknown type its JSON.
 */
export function resultText(result: CallToolResult): string {
  return result.content
    .map((item) => {
      switch (item.type) {
        case 'text':
          return item.text;
        case 'image':
        case 'audio':
          return label(item.type, { mimeType: item.mimeType });
        case 'resource_link': {
          const head = label('resource_link', { uri: item.uri, name: item.name, title: item.title, mimeType: item.mimeType });
          return item.description === undefined ? head : `${head} ${item.description}`;
        }
        case 'resource': {
          const head = label('resource', { uri: item.resource.uri, mimeType: item.resource.mimeType });
          return 'text' in item.resource ? `${head}\n${item.resource.text}` : head;
        }
        default:
          return `${label('content', { type: String((item as { type: unknown }).type) })} ${JSON.stringify(item)}`;
      }
    })
    .join('\n');
}
