/**
 * @ahp/adapter-langgraph — AHP for LangGraph.js (`@langchain/langgraph` 1.x).
 *
 * `ahpTools(tools, { client })` wraps LangChain tools (for a `ToolNode`, or called from your own
 * nodes) so that every call is checked by AHP before it runs (`pre-tool-use`) and reported after
 * (`post-tool-use`): a block returns the reason to the model, a control runs the tool with the
 * modified input, and a call a rule hands to an operator pauses the graph with LangGraph's own
 * `interrupt()`, whose value names the AHP request. `resumeWhenDecided()` waits until the
 * operator decided and returns the `Command({ resume })` to continue the thread; the resumed
 * call presents the AHP request, so the operator's decision is what happens.
 *
 * A node is run again from its start when a thread resumes. The first round of a call is
 * therefore sent with a hook id derived from the thread, the task and the tool call: asked again
 * on resume, the gateway answers with the decision it gave the first time — the same request —
 * instead of opening a second one.
 */
import { tool as langchainTool, type StructuredToolInterface, type ToolRunnableConfig } from '@langchain/core/tools';
import { Command, interrupt, type Interrupt } from '@langchain/langgraph';
import type { JsonObject } from '@ahp/protocol';
import type { AhpClient } from '@ahp/sdk';
import { canonicalJson, checkToolCall, reportToolCall, type ToolGuardClient } from '@ahp/sdk/agent-loop';

export interface AhpLangGraphOptions {
  client: ToolGuardClient;
  /** Sent as `context.extra` of every hook (e.g. `{ framework: 'langgraph' }`). */
  extra?: JsonObject;
}

/** The value of an AHP approval interrupt: what the operator is asked, and the request that carries it. */
export interface AhpApprovalInterrupt {
  readonly kind: 'ahp_approval';
  readonly requestId: string;
  readonly deadline: string;
  readonly reason: string;
  readonly tool: string;
  readonly input: JsonObject;
}

/** The resume value of an AHP approval interrupt: the request that was decided. */
export interface AhpApprovalResume {
  readonly request_id: string;
}

/** What {@link resumeWhenDecided} resumes with: one value, or values keyed by interrupt id. */
export type AhpResumeValue = AhpApprovalResume | Record<string, AhpApprovalResume>;

/** A resume-only command: it updates no state and goes to no node, so it fits any graph. */
export type ResumeCommand = Command<AhpResumeValue, never, never>;

/** Wraps each tool; see {@link ahpTool}. */
export function ahpTools(tools: readonly StructuredToolInterface[], options: AhpLangGraphOptions): StructuredToolInterface[] {
  return tools.map((tool) => ahpTool(tool, options));
}

/**
 * A tool with the same name, description and schema whose calls go through AHP. Must run inside
 * a graph with a checkpointer (LangGraph's requirement for `interrupt()`) when a rule may require
 * an operator's approval.
 */
export function ahpTool(original: StructuredToolInterface, options: AhpLangGraphOptions): StructuredToolInterface {
  const extra = options.extra === undefined ? {} : { extra: options.extra };
  const run = async (rawInput: unknown, config: ToolRunnableConfig): Promise<unknown> => {
    const input = asObject(rawInput);
    const hookId = await stableHookId(config, original.name, input);
    const first = await checkToolCall(options.client, original.name, input, { waitForApproval: false, hookId, ...extra });
    let check = first;
    if (first.verdict === 'await_approval') {
      const value: AhpApprovalInterrupt = { kind: 'ahp_approval', requestId: first.requestId, deadline: first.deadline, reason: first.reason, tool: original.name, input };
      // Throws (the graph pauses) until the thread is resumed; then returns the resume value.
      interrupt<AhpApprovalInterrupt, AhpApprovalResume | undefined>(value);
      // Whatever the resume value says, the server decides: present the request (still pending → wait here).
      check = await checkToolCall(options.client, original.name, input, { approvalRequestId: first.requestId, ...extra });
    }
    if (check.verdict !== 'allow') return check.message;
    // The original tool's own result, not a ToolMessage: this wrapper's caller makes that.
    const { toolCall: _toolCall, ...inner } = config;
    let output: unknown;
    try {
      output = await original.invoke(check.input as never, inner);
    } catch (error) {
      await reportToolCall(options.client, original.name, check.input, { ok: false, output: error instanceof Error ? error.message : String(error) }, extra);
      throw error;
    }
    const notes = [...check.notes, ...(await reportToolCall(options.client, original.name, check.input, { ok: true, output: textOf(output) }, extra))];
    return notes.length === 0 ? output : `${textOf(output)}\n${notes.join('\n')}`;
  };
  return langchainTool(run as never, { name: original.name, description: original.description, schema: original.schema as never }) as unknown as StructuredToolInterface;
}

/** The AHP approvals among a graph's interrupts (`result.__interrupt__`, or a state snapshot's task interrupts). */
export function ahpApprovalsOf(interrupts: readonly Interrupt[] | undefined): (AhpApprovalInterrupt & { interruptId?: string })[] {
  return (interrupts ?? []).flatMap((entry) => {
    const value = entry.value as Partial<AhpApprovalInterrupt> | undefined;
    if (value?.kind !== 'ahp_approval' || typeof value.requestId !== 'string') return [];
    return [{ ...(value as AhpApprovalInterrupt), ...(entry.id === undefined ? {} : { interruptId: entry.id }) }];
  });
}

/**
 * Waits until every AHP approval among `interrupts` was decided by an operator (or its deadline
 * passed) and returns the `Command` that resumes the thread: `graph.invoke(command, config)`.
 * With several interrupts, the resume values are keyed by interrupt id. Throws when there is an
 * interrupt that is not AHP's: those are the application's to answer.
 */
export async function resumeWhenDecided(client: Pick<AhpClient, 'untilApprovalDecided'>, interrupts: readonly Interrupt[] | undefined): Promise<ResumeCommand> {
  const all = interrupts ?? [];
  const approvals = ahpApprovalsOf(all);
  if (approvals.length === 0 || approvals.length !== all.length) throw new Error('resumeWhenDecided: every interrupt must be an AHP approval');
  for (const approval of approvals) await client.untilApprovalDecided(approval.requestId, approval.deadline);
  const resumeOf = (approval: AhpApprovalInterrupt): AhpApprovalResume => ({ request_id: approval.requestId });
  if (approvals.length === 1) return new Command<AhpResumeValue, never, never>({ resume: resumeOf(approvals[0] as AhpApprovalInterrupt) });
  const keyed: Record<string, AhpApprovalResume> = {};
  for (const approval of approvals) {
    if (approval.interruptId === undefined) throw new Error('resumeWhenDecided: several interrupts without ids');
    keyed[approval.interruptId] = resumeOf(approval);
  }
  return new Command<AhpResumeValue, never, never>({ resume: keyed });
}

/**
 * A UUID from the thread, the task (LangGraph's checkpoint namespace, which names the task and is
 * the same when the task runs again on resume) and the tool call (its id, else its name and
 * input): the same call gets the same hook id, another call another.
 */
async function stableHookId(config: ToolRunnableConfig, name: string, input: JsonObject): Promise<string> {
  const configurable = (config.configurable ?? {}) as Record<string, unknown>;
  const call = config.toolCall?.id ?? `${name}\n${canonicalJson(input)}`;
  const key = ['ahp-langgraph', String(configurable['thread_id'] ?? ''), String(configurable['checkpoint_ns'] ?? ''), call].join('\n');
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x50; // version 5 (name-based)
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(digest.subarray(0, 16), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The tool input as a JSON object (AHP's `tool.input` is always an object). */
function asObject(value: unknown): JsonObject {
  const copy: unknown = value === undefined ? {} : JSON.parse(JSON.stringify(value));
  return typeof copy === 'object' && copy !== null && !Array.isArray(copy) ? (copy as JsonObject) : { value: copy as never };
}

function textOf(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output) ?? '';
}
