/**
 * One tool call of an agent framework, checked by AHP: the `pre-tool-use` hook before it runs and
 * the `post-tool-use` hook after. The framework adapters (libs/adapter-*) are thin layers over
 * these two functions, so a block, a rewritten input, an approval wait and the answers to every
 * signal mean the same in each framework as in {@link runAgentLoop}.
 */
import { applyModifications, type ConsumptionAction, type JsonObject, type Modification, type Signal } from '@ahp/protocol/wire';
import type { AwaitingApprovalInfo } from './client-events.js';
import type { HookOptions } from './hook-calls.js';
import type { HookResult } from './hook-result.js';
import { isAhpClientError } from './errors.js';

/** What the guard needs of a client: {@link AhpClient} fits. */
export interface ToolGuardClient {
  hook(trigger: 'pre-tool-use' | 'post-tool-use', context: JsonObject, options?: HookOptions): Promise<HookResult>;
  respond(signal: Signal, action: ConsumptionAction): Promise<void>;
}

/** Options of {@link checkToolCall}. */
export interface CheckToolCallOptions {
  /**
   * `true` (the default): when a rule requires an operator's approval, wait for the decision
   * inside this call (the SDK's `hook()` does). `false`: return `verdict: 'await_approval'` at
   * once, for frameworks that pause a run themselves and resume it later with
   * {@link CheckToolCallOptions.approvalRequestId}.
   */
  waitForApproval?: boolean;
  /**
   * Present this approval request (second round): the call is sent again with
   * `context.approval = { request_id }`, and the answer is the operator's decision (waiting
   * again while the request is still pending, unless `waitForApproval` is `false`).
   */
  approvalRequestId?: string;
  /** The first round's hook id: the same id asked again gets the first decision back (a resumed run). */
  hookId?: string;
  /** Sent as `context.extra` (your own facts: a framework name, a run id). */
  extra?: JsonObject;
  /** Told when the call starts waiting for an operator. */
  onAwaitingApproval?: (info: AwaitingApprovalInfo) => void;
  /** The session this call belongs to, when one connection serves several. */
  sessionId?: string;
}

/** The outcome of {@link checkToolCall}. */
export type ToolCheck =
  /** Run the tool with `input` (the original, or rewritten by a control decision). */
  | {
      readonly verdict: 'allow';
      readonly input: JsonObject;
      readonly modifications: readonly Modification[];
      /** Warnings and notes of the decision, for the model. */
      readonly notes: readonly string[];
      readonly hookId: string;
    }
  /** Do not run the tool; `message` is what the model should see instead of a result. */
  | { readonly verdict: 'block'; readonly reason: string; readonly source: string; readonly message: string; readonly hookId?: string }
  /** Only with `waitForApproval: false`: an operator must decide request `requestId` first. */
  | {
      readonly verdict: 'await_approval';
      readonly requestId: string;
      readonly deadline: string;
      readonly reason: string;
      readonly message: string;
      readonly hookId: string;
    };

/**
 * Asks AHP about one tool call and answers the signals of the decision the way the reference loop
 * does: a block with `retry_after_fix` (and a control of the refused call with
 * `reject_modification`), an applied control with `accept_modification`, a prompt with
 * `acknowledge`. The block of an approval wait is answered by the approval and left alone.
 *
 * Fails closed: when the hook cannot be asked (no connection in time, a plan pending, the client
 * closed) or a modification cannot be applied, the verdict is a block naming why; the tool must
 * not run unchanged.
 */
export async function checkToolCall(client: ToolGuardClient, name: string, input: JsonObject, options: CheckToolCallOptions = {}): Promise<ToolCheck> {
  const context: JsonObject = {
    tool: { name, input },
    ...(options.approvalRequestId === undefined ? {} : { approval: { request_id: options.approvalRequestId } }),
    ...(options.extra === undefined ? {} : { extra: options.extra }),
  };
  let result: HookResult;
  try {
    result = await client.hook('pre-tool-use', context, {
      ...(options.waitForApproval === false ? { waitForApproval: false } : {}),
      ...(options.hookId === undefined ? {} : { hookId: options.hookId }),
      ...(options.onAwaitingApproval === undefined ? {} : { onAwaitingApproval: options.onAwaitingApproval }),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    });
  } catch (error) {
    const code = isAhpClientError(error) ? error.code : 'E_INTERNAL';
    const reason = `the control plane could not check this call (${code}: ${error instanceof Error ? error.message : String(error)})`;
    return { verdict: 'block', reason, source: 'ahp-client', message: `BLOCKED: ${reason}` };
  }

  if (!result.allowed) {
    const waiting = result.block.awaitingApproval;
    if (waiting !== undefined) {
      // The wait itself is answered by the approval; what other oracles said about this attempt
      // (a control merged in, a warning) is answered now, since the call does not run on it.
      await answerSignals(client, result.signals, { block: 'retry_after_fix', control: 'reject_modification', prompt: 'acknowledge' });
      return {
        verdict: 'await_approval',
        requestId: waiting.requestId,
        deadline: waiting.deadline,
        reason: result.block.reason,
        message: `WAITING for an operator's approval (request ${waiting.requestId}, deadline ${waiting.deadline}): ${result.block.reason}`,
        hookId: result.hookId,
      };
    }
    await answerSignals(client, result.signals, { block: 'retry_after_fix', control: 'reject_modification' });
    return { verdict: 'block', reason: result.block.reason, source: result.block.source, message: blockMessage(result), hookId: result.hookId };
  }

  let changed: JsonObject;
  try {
    changed = applyModifications(input, result.modifications);
  } catch (error) {
    await answerSignals(client, result.signals, { control: 'reject_modification', prompt: 'acknowledge' });
    const reason = `a modification could not be applied: ${(error as Error).message}`;
    return { verdict: 'block', reason, source: 'ahp-client', message: `BLOCKED: ${reason}`, hookId: result.hookId };
  }
  await answerSignals(client, result.signals, { control: 'accept_modification', prompt: 'acknowledge' });
  const notes = result.warnings.map((warning) => `WARNING: ${warning}`);
  if (result.modifications.length > 0) {
    notes.push(`NOTE: input changed by the control plane: ${result.modifications.map((m) => `${m.target} → ${JSON.stringify(m.updated)} (${m.reason})`).join('; ')}`);
  }
  return { verdict: 'allow', input: changed, modifications: result.modifications, notes, hookId: result.hookId };
}

/** The tool's outcome, as {@link reportToolCall} sends it. */
export interface ToolCallOutcome {
  ok: boolean;
  /** The result as text; the first 4000 characters are sent. */
  output: string;
}

/**
 * Sends the `post-tool-use` hook of a call that ran and returns the suggestions (aid signals) for
 * the model, answered with `suggestion_deferred`. A failed report is returned as a note, never
 * thrown: the tool already ran, and losing its report must not lose its result.
 */
export async function reportToolCall(
  client: ToolGuardClient,
  name: string,
  input: JsonObject,
  outcome: ToolCallOutcome,
  options: { extra?: JsonObject; sessionId?: string } = {},
): Promise<string[]> {
  const context: JsonObject = {
    tool: { name, input, ok: outcome.ok, output: outcome.output.slice(0, 4000) },
    ...(options.extra === undefined ? {} : { extra: options.extra }),
  };
  try {
    const post = await client.hook('post-tool-use', context, options.sessionId === undefined ? {} : { sessionId: options.sessionId });
    const notes: string[] = [];
    for (const signal of post.signals) {
      if (signal.payload.level === 'aiding') {
        notes.push(`SUGGESTION: ${JSON.stringify(signal.payload.suggestions)}`);
        await client.respond(signal, 'suggestion_deferred');
      } else if (signal.payload.level === 'prompting') {
        notes.push(`WARNING: ${signal.payload.message}`);
        await client.respond(signal, 'acknowledge');
      }
    }
    return notes;
  } catch (error) {
    return [`NOTE: the post-tool-use report failed (${isAhpClientError(error) ? error.code : String(error)})`];
  }
}

/** The text a model sees for a blocked call: who blocked, why, and what would lift it. */
function blockMessage(result: HookResult & { allowed: false }): string {
  return `BLOCKED by ${result.block.source}: ${result.block.reason}${result.block.resolutionPath.map((step) => `\n- ${step}`).join('')}`;
}

async function answerSignals(client: ToolGuardClient, signals: readonly Signal[], actions: Partial<Record<Signal['header']['intensity'], ConsumptionAction>>): Promise<void> {
  for (const signal of signals) {
    const action = actions[signal.header.intensity];
    if (action === undefined || (signal.payload.level === 'blocking' && signal.payload.resolution?.kind === 'await_approval')) continue;
    await client.respond(signal, action);
  }
}
