/**
 * @ahp/adapter-ai-sdk — AHP for the Vercel AI SDK (`ai`, major 7).
 *
 * `ahpTools(tools, { client })` wraps the `execute` of every tool so that each call is checked by
 * AHP before it runs (`pre-tool-use`) and reported after (`post-tool-use`): a block returns the
 * reason to the model instead of running, a control runs the tool with the modified input.
 *
 * Approvals, two ways:
 * - with `toolApproval: ahpToolApproval(ahp)` on `generateText` / `streamText`, a call a rule
 *   hands to an operator becomes the SDK's own `tool-approval-request`; `approveWhenDecided()`
 *   waits for the operator and returns the `tool-approval-response` message to append, and the
 *   next call presents the AHP request — the operator's decision is what happens;
 * - without it, `execute` waits for the operator's decision itself (the call simply takes as
 *   long as the person does).
 */
import type { ModelMessage, Tool, ToolExecutionOptions, ToolSet } from 'ai';
import type { JsonObject } from '@ahp/protocol';
import type { AhpClient } from '@ahp/sdk';
import { checkToolCall, reportToolCall, type ToolCheck, type ToolGuardClient } from '@ahp/sdk/agent-loop';

export interface AhpToolsOptions {
  client: ToolGuardClient;
  /** Sent as `context.extra` of every hook (e.g. `{ framework: 'ai-sdk' }`). */
  extra?: JsonObject;
}

/** The first round of one call (made by {@link ahpToolApproval}): its decision and the input it was asked about. */
interface FirstRound {
  readonly check: ToolCheck;
  readonly input: JsonObject;
}

/**
 * One AHP binding: the wrapped tools and the approval function share what the first round
 * decided, by tool-call id, so a call is asked about once.
 */
export interface AhpToolBinding<TOOLS extends ToolSet> {
  readonly tools: TOOLS;
  readonly options: AhpToolsOptions;
  readonly firstRounds: Map<string, FirstRound>;
}

/**
 * Wraps the tools of a tool set. Tools without `execute` (run by the provider or by the client)
 * pass through unchanged. Returns the binding: pass `binding.tools` to the SDK, and the binding to
 * {@link ahpToolApproval} for SDK-level approvals.
 */
export function ahpTools<TOOLS extends ToolSet>(tools: TOOLS, options: AhpToolsOptions): AhpToolBinding<TOOLS> {
  const firstRounds = new Map<string, FirstRound>();
  const wrapped: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute as ((input: unknown, run: ToolExecutionOptions<unknown>) => unknown) | undefined;
    if (execute === undefined) {
      wrapped[name] = tool;
      continue;
    }
    wrapped[name] = {
      ...tool,
      execute: async (input: unknown, run: ToolExecutionOptions<unknown>) => {
        const first = firstRounds.get(run.toolCallId);
        firstRounds.delete(run.toolCallId);
        const check = await finalCheck(options, name, asObject(input), first);
        if (check.verdict !== 'allow') return check.message;
        let output: unknown;
        try {
          output = await execute(check.input, run);
        } catch (error) {
          await reportToolCall(options.client, name, check.input, { ok: false, output: error instanceof Error ? error.message : String(error) }, extraOf(options));
          throw error;
        }
        const notes = [...check.notes, ...(await reportToolCall(options.client, name, check.input, { ok: true, output: textOf(output) }, extraOf(options)))];
        return notes.length === 0 ? output : `${textOf(output)}\n${notes.join('\n')}`;
      },
    } as Tool;
  }
  return { tools: wrapped as TOOLS, options, firstRounds };
}

/**
 * The decision `execute` acts on: the first round's; the operator's when it waited for one (the
 * request presented again — still pending means waiting here); without a first round (no
 * `toolApproval`, or another process), a check that waits for any approval itself.
 */
async function finalCheck(options: AhpToolsOptions, name: string, input: JsonObject, first: FirstRound | undefined): Promise<ToolCheck> {
  if (first === undefined) return checkToolCall(options.client, name, input, extraOf(options));
  if (first.check.verdict !== 'await_approval') return first.check;
  // The approval binds to the input the operator saw: the first round's.
  return checkToolCall(options.client, name, first.input, { ...extraOf(options), approvalRequestId: first.check.requestId });
}

/** What the SDK passes to a generic `toolApproval` function (the part the adapter reads). */
interface ApprovalQuestion {
  toolCall: { toolCallId: string; toolName: string; input: unknown };
}

/** The approval status the SDK expects (`ToolApprovalStatus`, the part the adapter returns). */
type ApprovalStatus = 'not-applicable' | { type: 'user-approval'; reason?: string };

/**
 * A generic `toolApproval` for `generateText` / `streamText`: asks AHP about each call of a
 * wrapped tool before it runs; a call that a rule hands to an operator becomes a
 * `tool-approval-request` with AHP's reason. Other calls are `not-applicable` here (a block
 * shows as the tool's result; the tool does not run).
 */
export function ahpToolApproval<TOOLS extends ToolSet>(binding: AhpToolBinding<TOOLS>): (question: ApprovalQuestion) => Promise<ApprovalStatus> {
  return async ({ toolCall }) => {
    if (binding.tools[toolCall.toolName]?.execute === undefined) return 'not-applicable';
    const input = asObject(toolCall.input);
    const check = await checkToolCall(binding.options.client, toolCall.toolName, input, { waitForApproval: false, ...extraOf(binding.options) });
    remember(binding.firstRounds, toolCall.toolCallId, { check, input });
    return check.verdict === 'await_approval' ? { type: 'user-approval', reason: check.message } : 'not-applicable';
  };
}

/** A `tool-approval-request` part of a result's content (the part the adapter reads). */
interface ApprovalRequestPart {
  type: string;
  approvalId?: string;
  toolCall?: { toolCallId: string };
}

/** The AHP request behind an approval request of the SDK, when there is one. */
export function ahpApprovalOf<TOOLS extends ToolSet>(binding: AhpToolBinding<TOOLS>, part: ApprovalRequestPart): { requestId: string; deadline: string } | undefined {
  const id = part.toolCall?.toolCallId;
  const check = id === undefined ? undefined : binding.firstRounds.get(id)?.check;
  return check?.verdict === 'await_approval' ? { requestId: check.requestId, deadline: check.deadline } : undefined;
}

/**
 * For each `tool-approval-request` of `content` (a result's `content`) that waits on AHP: waits
 * until the operator decided (or the request's deadline passed) and approves it. Returns the tool
 * message to append to the conversation before calling the model again (undefined when there was
 * nothing to approve); the resumed call then gets the operator's decision from AHP, so a
 * rejection reaches the model as the tool's result (the operator's feedback). Approval requests of
 * your own `toolApproval` rules are left to you.
 */
export async function approveWhenDecided<TOOLS extends ToolSet>(
  client: Pick<AhpClient, 'untilApprovalDecided'>,
  binding: AhpToolBinding<TOOLS>,
  content: readonly ApprovalRequestPart[],
): Promise<ModelMessage | undefined> {
  const responses: { type: 'tool-approval-response'; approvalId: string; approved: true; reason: string }[] = [];
  for (const part of content) {
    if (part.type !== 'tool-approval-request' || part.approvalId === undefined) continue;
    const pending = ahpApprovalOf(binding, part);
    if (pending === undefined) continue;
    await client.untilApprovalDecided(pending.requestId, pending.deadline);
    responses.push({ type: 'tool-approval-response', approvalId: part.approvalId, approved: true, reason: `AHP request ${pending.requestId} decided` });
  }
  return responses.length === 0 ? undefined : { role: 'tool', content: responses };
}

/** How many first rounds a binding remembers (a conversation that was abandoned leaves its own). */
const MAX_REMEMBERED = 1_000;

/** Sets `key`, forgetting the oldest entries beyond {@link MAX_REMEMBERED}: abandoned calls cannot grow memory without bound. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= MAX_REMEMBERED) break;
    map.delete(oldest);
  }
}

function extraOf(options: AhpToolsOptions): { extra?: JsonObject } {
  return options.extra === undefined ? {} : { extra: options.extra };
}

/** The tool input as a JSON object (AHP's `tool.input` is always an object). */
function asObject(value: unknown): JsonObject {
  const copy: unknown = value === undefined ? {} : JSON.parse(JSON.stringify(value));
  return typeof copy === 'object' && copy !== null && !Array.isArray(copy) ? (copy as JsonObject) : { value: copy as never };
}

function textOf(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output) ?? '';
}
