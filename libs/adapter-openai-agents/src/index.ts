/**
 * @ahp/adapter-openai-agents — AHP for the OpenAI Agents SDK for JS (`@openai/agents`).
 *
 * `withAhp(tools, { client })` wraps an agent's function tools so that every call is checked by
 * AHP before it runs (`pre-tool-use`) and reported after (`post-tool-use`):
 *
 * - blocked: the tool does not run; it returns the reason to the model;
 * - rewritten (control): the tool runs with the modified input;
 * - an operator must approve: the SDK's own approval mechanism — the run stops with an
 *   interruption; `approveWhenDecided()` waits for the operator and approves the interruption, and
 *   the resumed run presents the AHP request, so the operator's decision (approve, approve with
 *   changes, reject with feedback) is what happens.
 *
 * `ahpInputGuardrail(client)` maps an agent's input guardrail onto the `user-prompt-submit` hook.
 */
import type { FunctionTool, InputGuardrail, RunContext, RunState, RunToolApprovalItem, Tool } from '@openai/agents';
import type { JsonObject } from '@ahp/protocol';
import type { AhpClient } from '@ahp/sdk';
import { checkToolCall, reportToolCall, type ToolCheck, type ToolGuardClient } from '@ahp/sdk/agent-loop';

/** What the adapter needs of a client: {@link AhpClient} fits. */
export type AhpAgentsClient = ToolGuardClient & Pick<AhpClient, 'untilApprovalDecided'>;

export interface WithAhpOptions {
  client: ToolGuardClient;
  /** Sent as `context.extra` of every hook (e.g. `{ framework: 'openai-agents', run: '…' }`). */
  extra?: JsonObject;
}

/** What the adapter remembers about one pending approval (the interruption's call id → the AHP request). */
interface PendingApproval {
  readonly requestId: string;
  readonly deadline: string;
}

/** The first round of one call: its decision and the input it was asked about. */
interface FirstRound {
  readonly check: ToolCheck;
  readonly input: JsonObject;
}

/** The AHP approval requests behind interruptions, by tool-call id (for {@link approveWhenDecided}). */
const approvals = new Map<string, PendingApproval>();

/**
 * Wraps function tools (other tool kinds — hosted, computer, shell — pass through unchanged:
 * they do not run in this process). Returns new tool objects; the originals are not changed.
 */
export function withAhp<T extends Tool>(tools: readonly T[], options: WithAhpOptions): T[] {
  return tools.map((tool) => (tool.type === 'function' ? (wrapFunctionTool(tool as FunctionTool<unknown, never, unknown>, options) as unknown as T) : tool));
}

function wrapFunctionTool(tool: FunctionTool<unknown, never, unknown>, options: WithAhpOptions): FunctionTool<unknown, never, unknown> {
  // The first-round checks made in `needsApproval`, by tool-call id, for `invoke` to act on. A
  // check missing here (a run resumed in another process) is simply made again in `invoke`: the
  // call waits for a new decision rather than running unchecked.
  const checks = new Map<string, FirstRound>();
  const wrapped: FunctionTool<unknown, never, unknown> = {
    ...tool,
    // The SDK asks this before every call: the first round of the pre-tool-use hook happens here,
    // so that an AHP approval becomes the SDK's interruption.
    needsApproval: async (runContext, input, callId) => {
      const asked = asObject(input);
      const check = await checkToolCall(options.client, tool.name, asked, { waitForApproval: false, ...extraOf(options) });
      if (callId !== undefined) remember(checks, callId, { check, input: asked });
      if (check.verdict === 'await_approval') {
        if (callId !== undefined) remember(approvals, callId, { requestId: check.requestId, deadline: check.deadline });
        return true;
      }
      // Allowed or blocked by AHP: the tool's own approval policy still applies to what may run.
      return check.verdict === 'allow' ? tool.needsApproval(runContext, check.input as never, callId) : false;
    },
    invoke: async (runContext: RunContext<unknown>, rawInput: string, details) => {
      const callId = details?.toolCall?.callId;
      const first = callId === undefined ? undefined : checks.get(callId);
      if (callId !== undefined) checks.delete(callId);
      const original = parseInput(rawInput);
      if (original === undefined) return `BLOCKED: the tool input is not a JSON object`;
      const check = await finalCheck(options, tool.name, original, first);
      if (callId !== undefined) approvals.delete(callId);
      if (check.verdict !== 'allow') return check.message;
      let output: unknown;
      try {
        output = await tool.invoke(runContext, JSON.stringify(check.input), details);
      } catch (error) {
        await reportToolCall(options.client, tool.name, check.input, { ok: false, output: error instanceof Error ? error.message : String(error) }, extraOf(options));
        throw error;
      }
      const notes = [...check.notes, ...(await reportToolCall(options.client, tool.name, check.input, { ok: true, output: textOf(output) }, extraOf(options)))];
      if (notes.length === 0) return output;
      return `${textOf(output)}\n${notes.join('\n')}`;
    },
  };
  return wrapped;
}

/**
 * The decision `invoke` acts on: the first round's, or — when it waited for an operator — the
 * operator's (the request presented again; still pending means waiting here); without a first
 * round, a fresh check that waits for any approval itself.
 */
async function finalCheck(options: WithAhpOptions, name: string, input: JsonObject, first: FirstRound | undefined): Promise<ToolCheck> {
  if (first === undefined) return checkToolCall(options.client, name, input, extraOf(options));
  if (first.check.verdict !== 'await_approval') return first.check;
  // The approval binds to the input the operator saw: the first round's.
  return checkToolCall(options.client, name, first.input, { ...extraOf(options), approvalRequestId: first.check.requestId });
}

/** The AHP approval request behind an interruption, when there is one. */
export function ahpApprovalOf(item: RunToolApprovalItem): { requestId: string; deadline: string } | undefined {
  const callId = 'callId' in item.rawItem ? item.rawItem.callId : undefined;
  return callId === undefined ? undefined : approvals.get(callId);
}

/**
 * For each interruption of `state` that waits for an AHP approval: waits until the operator
 * decided (or the request's deadline passed) and approves the interruption, so that the next
 * `run(agent, state)` resumes the call; the call then gets the operator's decision from AHP.
 * Interruptions of the tools' own approval policies are left to the application. Returns the
 * interruptions it approved.
 */
export async function approveWhenDecided(client: Pick<AhpClient, 'untilApprovalDecided'>, state: Pick<RunState<unknown, never>, 'getInterruptions'> & { approve(item: RunToolApprovalItem): void }): Promise<RunToolApprovalItem[]> {
  const approved: RunToolApprovalItem[] = [];
  for (const item of state.getInterruptions()) {
    const pending = ahpApprovalOf(item);
    if (pending === undefined) continue;
    await client.untilApprovalDecided(pending.requestId, pending.deadline);
    state.approve(item);
    approved.push(item);
  }
  return approved;
}

/**
 * An agent input guardrail backed by the `user-prompt-submit` hook: a block trips the wire
 * (`InputGuardrailTripwireTriggered`, with the reason in `outputInfo`), so the run never starts on
 * a prompt the rules refuse. Block signals are answered with `abort` (the prompt is not retried).
 */
export function ahpInputGuardrail(client: ToolGuardClient & Pick<AhpClient, 'hook' | 'respond'>, options: { extra?: JsonObject } = {}): InputGuardrail {
  return {
    name: 'ahp',
    // Before the model sees the prompt, not alongside it.
    runInParallel: false,
    execute: async ({ input }) => {
      const prompt = typeof input === 'string' ? input : JSON.stringify(input);
      const result = await client.hook('user-prompt-submit', { prompt, ...(options.extra === undefined ? {} : { extra: options.extra }) });
      for (const signal of result.signals) {
        if (signal.header.intensity === 'block') await client.respond(signal, 'abort');
        else if (signal.header.intensity === 'prompt') await client.respond(signal, 'acknowledge');
      }
      return { tripwireTriggered: !result.allowed, outputInfo: result.allowed ? { warnings: result.warnings } : { reason: result.block.reason, source: result.block.source } };
    },
  };
}

/** How many calls the adapter remembers between the SDK's approval question and the call (runs that were abandoned leave theirs). */
const MAX_REMEMBERED = 1_000;

/** Sets `key`, forgetting the oldest entries beyond {@link MAX_REMEMBERED}: abandoned runs cannot grow memory without bound. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= MAX_REMEMBERED) break;
    map.delete(oldest);
  }
}

function extraOf(options: WithAhpOptions): { extra?: JsonObject } {
  return options.extra === undefined ? {} : { extra: options.extra };
}

/** The model's arguments as a JSON object, or undefined: AHP's `tool.input` is always an object. */
function parseInput(raw: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(raw === '' ? '{}' : raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

function asObject(value: unknown): JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (JSON.parse(JSON.stringify(value)) as JsonObject) : { value: value as never };
}

function textOf(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output) ?? '';
}
