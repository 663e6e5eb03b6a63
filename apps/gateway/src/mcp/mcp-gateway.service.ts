import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  LIMITS,
  McpGatewayConfigSchema,
  applyModifications,
  describeIssues,
  inspectHookContext,
  makeError,
  mcpToolName,
  mcpToolVisible,
  type AgentIdentity,
  type FailurePolicy,
  type HookDecision,
  type HookTrigger,
  type JsonObject,
  type McpGatewayConfig,
  type McpServerConfig,
} from '@ahp/protocol';
import type { CallToolResult, ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import { hookDeadlineFor, type GatewayConfig } from '../config/gateway-config.js';
import { HooksService } from '../hooks/hooks.service.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiError } from '../operator-api/api-error.js';
import { SessionOpener, type SessionOpening } from '../sessions/session-opener.js';
import { McpCallSlots } from './mcp-call-slots.js';
import { McpRequestRefused, compilePatterns, governedResult, redactResult, refusalResult, resultText, toolError, unknownContentTypes, withToolFailurePolicy } from './mcp-results.js';
import { McpUpstreams, UpstreamError } from './mcp-upstreams.js';

/** The config file could not be used; the gateway does not start with a half-read policy. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

/** Reads and checks `AHP_MCP_CONFIG_FILE`. @throws McpConfigError naming the file and the first problems. */
export async function loadMcpConfig(file: string): Promise<McpGatewayConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new McpConfigError(`AHP_MCP_CONFIG_FILE ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new McpConfigError(`AHP_MCP_CONFIG_FILE ${file} is not JSON`);
  }
  const parsed = McpGatewayConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new McpConfigError(`AHP_MCP_CONFIG_FILE ${file} is invalid: ${describeIssues(parsed.error.issues)}`);
  }
  return parsed.data;
}

/**
 * The AHP session of an agent's MCP calls: derived from the agent and the label its client may
 * send (`X-AHP-Session`, default `default`), so every call of one client lands in the same
 * session on any gateway — which is what binds an approval to the retry of the same call — and
 * two agents using the same label never share one.
 */
export function mcpSessionId(agentId: string, label: string): string {
  return `mcp-${createHash('sha256').update(`${agentId}\0${label}`, 'utf8').digest('hex').slice(0, 40)}`;
}

/**
 * The most text of a result the `post-tool-use` rules can see: `tool.output` is tool text, up to
 * `LIMITS.maxLongText` in the hook context limits that the frame, the job (HookJobDataSchema) and
 * this route share (hook-context-limits.ts of @ahp/protocol).
 */
const MAX_INSPECTED_TEXT = LIMITS.maxLongText;

/** The `post-tool-use` context of a result, and whether the rules see all of the result in it. */
interface PostContext {
  readonly context: JsonObject;
  /** False when the text was cut at the hook context limit or the structured content left out. */
  readonly complete: boolean;
  /** The result's text length (characters), for the operator's log and the model's message. */
  readonly textChars: number;
}

/** A server of the config with its compiled redaction patterns. */
interface Upstream {
  readonly config: McpServerConfig;
  readonly patterns: readonly RegExp[];
}

/**
 * A tool call through the gateway, step by step (docs/mcp-gateway.md):
 *
 * 1. a tool the server's `tools` policy hides is refused before anything else, and so is a call
 *    past the agent's `max_concurrent_calls_per_agent` on the server;
 * 2. `pre-tool-use` is evaluated by the same HooksService as every hook — same rules, oracles,
 *    escalation, approvals, signal log — with `tool.name = mcp__<server>__<tool>`, the arguments
 *    as `tool.input` and `mcp: { server, tool }`;
 * 3. a block becomes a tool error with the reason (an approval wait tells the model to retry the
 *    identical call later); a control's modifications are applied to the arguments;
 * 4. the call is forwarded, bounded by the tool's timeout;
 * 5. the result is redacted (built-in secret patterns and the server's), then inspected by a
 *    `post-tool-use` hook: a block withholds it, warnings and aid are added for the model. A
 *    result the hook cannot hold in full (over the context limits) cannot be inspected: the
 *    tool's failure policy decides, as for a decision that cannot be made — closed withholds it.
 *    A JSON-RPC error the upstream answers with is a tool error result like any other.
 *
 * When a decision cannot be made in time (no worker, Redis down), the tool's failure policy decides
 * (fail closed unless the file says otherwise). Nothing of a call lives only here: hooks, approvals
 * and grants are in Redis, so a retry on any gateway finds them.
 */
@Injectable()
export class McpGatewayService implements OnModuleInit, OnModuleDestroy {
  private readonly log: JsonLogger;
  private readonly upstreams: McpUpstreams;
  private readonly slots = new McpCallSlots();
  private servers = new Map<string, Upstream>();

  constructor(
    @Inject(HooksService) private readonly hooks: HooksService,
    @Inject(SessionOpener) private readonly sessions: SessionOpener,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'mcp' });
    this.upstreams = new McpUpstreams(this.log);
  }

  async onModuleInit(): Promise<void> {
    if (this.config.mcpConfigFile === undefined) return;
    const parsed = await loadMcpConfig(this.config.mcpConfigFile);
    this.servers = new Map(parsed.servers.map((server) => [server.id, { config: server, patterns: compilePatterns(server.redact.patterns) }]));
    this.log.info({ servers: [...this.servers.keys()] }, 'MCP gateway enabled');
  }

  async onModuleDestroy(): Promise<void> {
    await this.upstreams.close();
  }

  /** Whether this gateway serves MCP at all (`AHP_MCP_CONFIG_FILE` set). */
  get enabled(): boolean {
    return this.servers.size > 0;
  }

  /** The configured server `id`, or undefined. */
  server(id: string): McpServerConfig | undefined {
    return this.servers.get(id)?.config;
  }

  /** The upstream's tools that `agent` may see (one page). @throws UpstreamError */
  async listTools(agent: AgentIdentity, serverId: string, cursor: string | undefined): Promise<ListToolsResult> {
    const upstream = this.require(serverId);
    let page: ListToolsResult;
    try {
      page = await this.upstreams.listTools(upstream.config, cursor, upstream.config.timeout_ms);
    } catch (error) {
      if (!(error instanceof UpstreamError) || error.kind !== 'error_response') throw error;
      // The upstream's own words go to the client as the call's error: redacted, as its results are.
      const text = resultText(redactResult({ content: [{ type: 'text', text: error.message }] }, upstream.patterns));
      throw new UpstreamError('error_response', `the upstream server "${serverId}" answered with an error (JSON-RPC ${String(error.code)}): ${text}`, error.code);
    }
    return { ...page, tools: page.tools.filter((tool) => mcpToolVisible(upstream.config, tool.name, agent)) };
  }

  /** One governed tool call (see the class comment); always a result, never a throw for the call's own outcome. */
  async callTool(agent: AgentIdentity, sessionLabel: string, serverId: string, tool: string, args: JsonObject): Promise<CallToolResult> {
    const upstream = this.require(serverId);
    const server = upstream.config;
    const fields = { agentId: agent.id, server: serverId, tool };
    if (!mcpToolVisible(server, tool, agent)) {
      this.log.info(fields, 'MCP call refused: the tool is not available to agents');
      return toolError(`Blocked by AHP: the tool "${tool}" of "${serverId}" is not available to agents.`, 'not_available');
    }
    const limit = server.max_concurrent_calls_per_agent;
    const release = this.slots.tryTake(serverId, agent.id, limit);
    if (release === undefined) {
      this.log.info({ ...fields, limit }, 'MCP call refused: the agent has its most calls in flight on this server');
      return toolError(
        `Blocked by AHP: you already have ${limit} calls in flight on "${serverId}", the most one agent may have at once. Wait for one of them to finish, then retry this call. (E_RATE_LIMITED)`,
        'too_many_calls',
        undefined,
        { limit },
      );
    }
    try {
      return await this.governedCall(agent, sessionLabel, upstream, tool, args);
    } finally {
      release();
    }
  }

  /** {@link callTool} once the call has its slot. */
  private async governedCall(agent: AgentIdentity, sessionLabel: string, upstream: Upstream, tool: string, args: JsonObject): Promise<CallToolResult> {
    const server = upstream.config;
    const serverId = server.id;
    const fields = { agentId: agent.id, server: serverId, tool };
    const settings = server.tools.settings?.[tool];
    const policy: FailurePolicy = settings?.failure_policy ?? server.failure_policy;
    const timeoutMs = settings?.timeout_ms ?? server.timeout_ms;
    const name = mcpToolName(serverId, tool);
    const mcp = { server: serverId, tool };

    const context: JsonObject = { tool: { name, input: args }, mcp };
    const issue = inspectHookContext(context, 1)[0];
    if (issue !== undefined) {
      return toolError(`Blocked by AHP (fail-closed): the call's arguments exceed the hook context limits at ${issue.path.join('.')}: ${issue.message} (E_INVALID_FRAME)`, 'blocked');
    }
    const sessionId = await this.session(agent, sessionLabel);
    if (sessionId === undefined) {
      return toolError('Blocked by AHP (fail-closed): the session could not be opened (E_UNAVAILABLE)', 'failure_policy');
    }

    const pre = withToolFailurePolicy(await this.evaluate(agent, sessionId, 'pre-tool-use', context), policy);
    if (!pre.allowed) {
      this.log.info({ ...fields, hookId: pre.hook_id, decidedBy: pre.decided_by }, 'MCP call refused by its pre-tool-use decision');
      return refusalResult(pre);
    }
    let finalArgs = args;
    if (pre.modifications.length > 0) {
      try {
        finalArgs = applyModifications(args, pre.modifications);
      } catch (error) {
        return toolError(`Blocked by AHP: a rule's change to this call cannot be applied (${error instanceof Error ? error.message : String(error)})`, 'blocked', pre);
      }
    }

    let raw: CallToolResult;
    try {
      raw = await this.upstreams.callTool(server, tool, finalArgs, timeoutMs);
    } catch (error) {
      const failure = error instanceof UpstreamError ? error : new UpstreamError('unavailable', String(error));
      if (failure.kind === 'error_response') {
        // The upstream's answer to this call (an unknown tool, bad arguments, a handler that threw —
        // how servers on the SDK's low-level API report a tool's failure): a tool error for this
        // agent, redacted and inspected like any result. The shared connection is untouched.
        raw = { content: [{ type: 'text', text: `The upstream server "${serverId}" answered with an error (JSON-RPC ${String(failure.code)}): ${failure.message}` }], isError: true };
      } else {
        this.log.warn({ ...fields, kind: failure.kind }, 'MCP upstream call produced no result');
        const code = failure.kind === 'timeout' ? 'E_TIMEOUT' : 'E_UNAVAILABLE';
        return toolError(`AHP: ${failure.message} (${code}). The call may or may not have taken effect upstream.`, failure.kind === 'timeout' ? 'upstream_timeout' : 'upstream_error', pre);
      }
    }

    const result = redactResult(raw, upstream.patterns);
    const inspected = this.postContext(name, finalArgs, mcp, result);
    // Content of a type the gateway does not know is shown to the rules as JSON, but how a client
    // renders it is not known: like a result too large to see whole, it is not fully inspected.
    const unknownTypes = unknownContentTypes(result);
    if (unknownTypes.length > 0 && policy === 'fail_closed') {
      this.log.warn({ ...fields, contentTypes: unknownTypes }, 'MCP result withheld: content of a type AHP does not know');
      return toolError(
        `Blocked by AHP (fail-closed): the tool ran, but its result holds content of a type AHP does not know how to inspect (${unknownTypes.join(', ')}); the result is withheld.`,
        'result_withheld',
        pre,
        { reason: 'unknown_content', content_types: unknownTypes },
      );
    }
    if (unknownTypes.length > 0) this.log.warn({ ...fields, contentTypes: unknownTypes }, 'MCP result with content of a type AHP does not know passed (fail_open)');
    if (!inspected.complete && policy === 'fail_closed') {
      // Rules that saw a part would let the rest reach the model unseen (padding, a larger read):
      // a result that cannot be inspected in full is one that cannot be inspected, as for a
      // decision that cannot be made. No hook is recorded for it; this log line is the record.
      this.log.warn({ ...fields, textChars: inspected.textChars, limit: MAX_INSPECTED_TEXT }, 'MCP result withheld: too large to inspect in full');
      return toolError(
        `Blocked by AHP (fail-closed): the tool ran, but its result (${inspected.textChars} characters of text${result.structuredContent === undefined ? '' : ' and structured content'}) is larger than AHP can inspect (${MAX_INSPECTED_TEXT} characters of text, structured content within the hook context limits); the result is withheld. Ask for a smaller part of it (a range, a page, a narrower query).`,
        'result_withheld',
        pre,
        { reason: 'too_large_to_inspect', text_chars: inspected.textChars, limit_chars: MAX_INSPECTED_TEXT },
      );
    }
    if (!inspected.complete) this.log.warn({ ...fields, textChars: inspected.textChars, limit: MAX_INSPECTED_TEXT }, 'MCP result passed partly inspected (fail_open)');
    const post = withToolFailurePolicy(await this.evaluate(agent, sessionId, 'post-tool-use', inspected.context), policy);
    if (!post.allowed) {
      this.log.info({ ...fields, hookId: post.hook_id, decidedBy: post.decided_by }, 'MCP result withheld by its post-tool-use decision');
      return toolError(`${refusalText(post)} The tool ran; its result is withheld.`, 'result_withheld', post);
    }
    if (post.modifications.length > 0) {
      // A result cannot be edited by a rule's modifications; handing it over unchanged would skip the rule.
      return toolError(`Blocked by AHP: a rule changes this result (${post.modifications.map((m) => `${m.target}: ${m.reason}`).join('; ')}), which the MCP gateway cannot apply; the result is withheld.`, 'result_withheld', post);
    }
    return governedResult(result, pre, post, inspected.complete && unknownTypes.length === 0 ? {} : { inspected: 'partial' });
  }

  private require(serverId: string): Upstream {
    const upstream = this.servers.get(serverId);
    if (upstream === undefined) throw new OperatorApiError(makeError('E_NOT_FOUND', `no MCP server "${serverId}" on this gateway`));
    return upstream;
  }

  /**
   * Opens (or resumes) the agent's MCP session; undefined when Redis cannot.
   * @throws OperatorApiError for a foreign session; McpRequestRefused (the call's JSON-RPC error)
   *   for a new session over the agent's new-session limit — nothing is recorded for it.
   */
  private async session(agent: AgentIdentity, label: string): Promise<string | undefined> {
    const sessionId = mcpSessionId(agent.id, label);
    let session: SessionOpening;
    try {
      session = await this.sessions.open(agent, sessionId, sessionId);
    } catch (error) {
      this.log.error({ agentId: agent.id, sessionId, error }, 'opening the MCP session failed');
      return undefined;
    }
    if (session.kind === 'foreign') throw new OperatorApiError(makeError('E_FORBIDDEN', 'this session belongs to another agent'));
    if (session.kind === 'limited') {
      this.log.info({ agentId: agent.id, sessionId, retryAfterMs: session.error.retry_after_ms }, 'MCP call refused: its new session (X-AHP-Session) is over the new-session limit');
      throw new McpRequestRefused(session.error);
    }
    return session.sessionId;
  }

  private evaluate(agent: AgentIdentity, sessionId: string, trigger: HookTrigger, context: JsonObject): Promise<HookDecision> {
    return this.hooks.evaluate({ agent, sessionId, trigger, context, deadlineMs: hookDeadlineFor(this.config, trigger) });
  }

  /** The `post-tool-use` context: the call, and the (redacted) result within the hook context limits. */
  private postContext(name: string, input: JsonObject, mcp: JsonObject, result: CallToolResult): PostContext {
    const text = resultText(result);
    const output = text.slice(0, MAX_INSPECTED_TEXT);
    let complete = output.length === text.length;
    const context: JsonObject = { tool: { name, input, ok: result.isError !== true, output }, mcp };
    if (result.structuredContent !== undefined) {
      const withResponse: JsonObject = { ...context, tool: { name, input, ok: result.isError !== true, output, response: result.structuredContent as JsonObject } };
      if (inspectHookContext(withResponse, 1).length === 0) return { context: withResponse, complete, textChars: text.length };
      // Left out, it is still seen when the text the rules read carries it serialized, as the
      // specification asks tools to send it (compact or indented, the SDK examples' two forms).
      complete &&= serializedIn(output, result.structuredContent);
    }
    return { context, complete, textChars: text.length };
  }
}

/** Whether `text` holds `value` as JSON, compact or indented by two spaces. */
function serializedIn(text: string, value: unknown): boolean {
  return text.includes(JSON.stringify(value)) || text.includes(JSON.stringify(value, null, 2));
}

/** The reason text of a refusing decision (the same words as the pre-call refusal). */
function refusalText(decision: HookDecision): string {
  const first = refusalResult(decision).content[0];
  return first !== undefined && first.type === 'text' ? first.text : 'Blocked by AHP.';
}
