/**
 * An MCP server that gives any MCP-capable agent AHP as tools, so an agent with no AHP adapter of
 * its own can still join: it asks before each of its tool calls, waits for an operator when a rule
 * says so, reports results, submits plans and reads its inbox. Behind the tools is one AHP agent
 * connection (`@ahp/sdk`): the agent is the token's, whatever the MCP client says.
 *
 * Waiting is bounded per call (`wait_seconds`, at most {@link MAX_WAIT_SECONDS}) because MCP
 * clients time requests out (commonly after 60 s): a call that is still waiting answers
 * "pending" with the request id, and the agent asks again with `ahp_await_approval` /
 * `ahp_await_plan`.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PlanSchema, type JsonObject } from '@ahp/protocol';
import { SDK_VERSION, type AhpClient, type RequestDecision } from '@ahp/sdk';
import { checkToolCall, reportToolCall, type ToolCheck } from '@ahp/sdk/agent-loop';
import { z } from 'zod';

/** The longest a single tool call of this server waits for a person. */
export const MAX_WAIT_SECONDS = 50;
/** How many approval waits and plans one server remembers (oldest forgotten first). */
const MAX_REMEMBERED = 1_000;

/** What the server needs of a client: {@link AhpClient} fits. */
export type AhpMcpClient = Pick<AhpClient, 'hook' | 'respond' | 'untilApprovalDecided' | 'submitPlan' | 'idle'>;

export interface AhpMcpServerOptions {
  client: AhpMcpClient;
  /** Sent as `context.extra` of every hook. @defaultValue `{ via: 'mcp' }` */
  extra?: JsonObject;
}

const ToolNameSchema = z.string().min(1).max(256);
const ToolInputSchema = z.record(z.string(), z.unknown());
const WaitSchema = z.number().min(0).max(MAX_WAIT_SECONDS);

/** Creates the server; connect it to a transport (stdio, Streamable HTTP, in-memory). */
export function createAhpMcpServer(options: AhpMcpServerOptions): McpServer {
  const { client } = options;
  const extra = { extra: options.extra ?? { via: 'mcp' } };
  const server = new McpServer({ name: 'ahp', version: SDK_VERSION });
  // Calls waiting for an operator: request id → the call, to present it once decided.
  const approvals = new BoundedMap<string, { tool: string; input: JsonObject }>(MAX_REMEMBERED);
  // Plans submitted and not yet decided: request id → the decision's promise.
  const plans = new BoundedMap<string, Promise<RequestDecision>>(MAX_REMEMBERED);

  /** The answer of a check; an approval wait is remembered so `ahp_await_approval` can present it. */
  const verdictOf = (check: ToolCheck, tool: string, input: JsonObject): CallToolResult => {
    if (check.verdict === 'await_approval') {
      approvals.set(check.requestId, { tool, input });
      return answer({ verdict: 'await_approval', request_id: check.requestId, deadline: check.deadline, message: check.message, next: 'call ahp_await_approval with this request_id; do not run the tool yet' });
    }
    if (check.verdict === 'block') return answer({ verdict: 'block', message: check.message, next: 'do not run the tool' });
    return answer({ verdict: 'allow', input: check.input, modified: check.modifications.length > 0, notes: [...check.notes], next: 'run the tool with this input, then call ahp_report_tool_result' });
  };

  server.registerTool(
    'ahp_check_tool_call',
    {
      description:
        'Ask AHP (the control plane) before running one of your tools. Answer: verdict "allow" (run it with the returned input, which may be modified), "block" (do not run it; message says why) or "await_approval" (an operator must decide; call ahp_await_approval).',
      inputSchema: { tool: ToolNameSchema.describe('the name of the tool you are about to call'), input: ToolInputSchema.describe('its arguments object') },
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    async ({ tool, input }) => {
      const asked = toJsonObject(input);
      return verdictOf(await checkToolCall(client, tool, asked, { waitForApproval: false, ...extra }), tool, asked);
    },
  );

  server.registerTool(
    'ahp_await_approval',
    {
      description: `Wait (at most wait_seconds, default and maximum ${MAX_WAIT_SECONDS}) until an operator decided an approval request from ahp_check_tool_call, then get the final verdict. Still "await_approval" means: call this again.`,
      inputSchema: { request_id: z.string().min(1).max(200), wait_seconds: WaitSchema.optional() },
    },
    async ({ request_id: requestId, wait_seconds: waitSeconds }) => {
      const call = approvals.get(requestId);
      if (call === undefined) return failure(`unknown approval request ${requestId} for this session: call ahp_check_tool_call again`);
      // The SDK adds a 2 s grace after the deadline it is given; keep the whole wait within wait_seconds.
      const deadline = new Date(Date.now() + Math.max(0, (waitSeconds ?? MAX_WAIT_SECONDS) * 1000 - 2000)).toISOString();
      // Resolves when the request settled, when the wait ended, or after a reconnect: the server's answer decides.
      await client.untilApprovalDecided(requestId, deadline);
      const check = await checkToolCall(client, call.tool, call.input, { approvalRequestId: requestId, waitForApproval: false, ...extra });
      if (check.verdict !== 'await_approval' || check.requestId !== requestId) approvals.delete(requestId);
      return verdictOf(check, call.tool, call.input);
    },
  );

  server.registerTool(
    'ahp_report_tool_result',
    {
      description: 'Tell AHP how a tool call you were allowed to run went. Returns suggestions from the control plane, if any.',
      inputSchema: {
        tool: ToolNameSchema,
        input: ToolInputSchema.describe('the input you ran it with'),
        ok: z.boolean(),
        output: z.string().max(65_536).describe('the result, or the error (the first 4000 characters are kept)'),
      },
    },
    async ({ tool, input, ok, output }) => answer({ notes: await reportToolCall(client, tool, toJsonObject(input), { ok, output }, extra) }),
  );

  server.registerTool(
    'ahp_submit_plan',
    {
      description: `Submit your plan for approval (to your team lead, or to the operators) and wait at most wait_seconds (default and maximum ${MAX_WAIT_SECONDS}) for the decision. While it is pending your tool calls are refused. "pending" means: call ahp_await_plan.`,
      inputSchema: {
        plan: PlanSchema.describe('{ title, steps: [{ id, description, dependencies, status: "pending", tools_expected }] }'),
        approver: z.enum(['lead', 'operators', 'both']).optional(),
        wait_seconds: WaitSchema.optional(),
      },
    },
    async ({ plan, approver, wait_seconds: waitSeconds }) => {
      const requestId = `req_plan_${globalThis.crypto.randomUUID()}`;
      const decision = client.submitPlan(plan, { requestId, ...(approver === undefined ? {} : { approver }) });
      // Kept even when nobody asks again: an unobserved rejection must not crash the process.
      decision.catch(() => undefined);
      plans.set(requestId, decision);
      return planAnswer(requestId, decision, waitSeconds, plans);
    },
  );

  server.registerTool(
    'ahp_await_plan',
    {
      description: `Wait at most wait_seconds (default and maximum ${MAX_WAIT_SECONDS}) for the decision on a plan from ahp_submit_plan.`,
      inputSchema: { request_id: z.string().min(1).max(200), wait_seconds: WaitSchema.optional() },
    },
    async ({ request_id: requestId, wait_seconds: waitSeconds }) => {
      const decision = plans.get(requestId);
      if (decision === undefined) return failure(`unknown plan request ${requestId} for this session`);
      return planAnswer(requestId, decision, waitSeconds, plans);
    },
  );

  server.registerTool(
    'ahp_read_inbox',
    {
      description: 'Read the messages your team sent you (at most max_messages), waiting at most wait_seconds (default 0) for the first. "shutdown": your lead asked you to stop and you agreed — finish now.',
      inputSchema: { wait_seconds: WaitSchema.optional(), max_messages: z.number().int().min(1).max(50).optional() },
      annotations: { readOnlyHint: true },
    },
    async ({ wait_seconds: waitSeconds, max_messages: maxMessages }) => {
      const messages: JsonObject[] = [];
      let timeoutMs = Math.max(10, (waitSeconds ?? 0) * 1000);
      while (messages.length < (maxMessages ?? 10)) {
        const next = await client.idle({ timeoutMs });
        if (next.kind === 'timeout') break;
        if (next.kind === 'shutdown') return answer({ shutdown: true, messages });
        const { id, from, type, content, sent_at: sentAt } = next.message;
        messages.push({ id, from, type, content, sent_at: sentAt });
        timeoutMs = 10; // the rest only if already there
      }
      return answer({ shutdown: false, messages });
    },
  );

  return server;
}

/** Waits for a plan's decision at most `waitSeconds`; a settled plan is forgotten. */
async function planAnswer(requestId: string, decision: Promise<RequestDecision>, waitSeconds: number | undefined, plans: BoundedMap<string, Promise<RequestDecision>>): Promise<CallToolResult> {
  const outcome = await within(decision, (waitSeconds ?? MAX_WAIT_SECONDS) * 1000);
  if (outcome.kind === 'timeout') return answer({ status: 'pending', request_id: requestId, next: 'call ahp_await_plan with this request_id' });
  plans.delete(requestId);
  if (outcome.kind === 'error') return failure(`the plan could not be submitted: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`);
  const { status, approved, feedback, decidedBy } = outcome.value;
  return answer({ status, approved, request_id: requestId, ...(feedback === undefined ? {} : { feedback }), ...(decidedBy === undefined ? {} : { decided_by: decidedBy }) });
}

async function within<T>(promise: Promise<T>, ms: number): Promise<{ kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'timeout' }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<{ kind: 'timeout' }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ kind: 'value' as const, value }), (error: unknown) => ({ kind: 'error' as const, error })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function answer(value: JsonObject): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function toJsonObject(value: Record<string, unknown>): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}

/** A Map that forgets its oldest entries beyond `limit`: an agent cannot grow the server's memory without bound. */
class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    this.delete(key);
    super.set(key, value);
    while (this.size > this.limit) {
      const oldest = this.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
    return this;
  }
}
