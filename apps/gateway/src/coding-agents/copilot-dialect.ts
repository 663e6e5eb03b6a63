/**
 * GitHub Copilot (its CLI and the cloud agent's repository hooks) as a {@link HookDialect}: which
 * AHP trigger each Copilot hook event is, what context the oracles see, and how a decision reads
 * as the answer Copilot obeys. Copilot processes the answers of three events only — preToolUse,
 * permissionRequest, agentStop/subagentStop — so at the others AHP observes (the hook is
 * evaluated, recorded and shown in the fleet) but cannot act: the answer is `{}`. Pure;
 * docs/coding-agents.md has the same tables.
 */
import { applyModifications, copilotCamelCaseInput, copilotEventName, CopilotEventSchema, CopilotHookInputSchema, copilotToolArgs } from '@ahp/protocol';
import type { AhpError, CopilotEvent, CopilotHookInput, CopilotHookOutput, HookDecision, HookTrigger, JsonObject } from '@ahp/protocol';
import { parseInput } from '../operator-api/api-error.js';
import { adjustedCallReason, modificationSummary, unappliedModificationReason, verdictOf } from './decision-text.js';
import type { AnswerView } from './hook-answers.js';
import { definedFields, type HookDialect } from './hook-dialect.js';

/** The AHP trigger of each Copilot event; permissionRequest is the gate before the same tool call as preToolUse. */
export const COPILOT_TRIGGERS: Readonly<Record<CopilotEvent, HookTrigger>> = Object.freeze({
  sessionStart: 'session-start',
  sessionEnd: 'session-end',
  userPromptSubmitted: 'user-prompt-submit',
  preToolUse: 'pre-tool-use',
  permissionRequest: 'pre-tool-use',
  postToolUse: 'post-tool-use',
  postToolUseFailure: 'post-tool-use',
  agentStop: 'stop',
  subagentStop: 'stop',
  preCompact: 'pre-compact',
});

/**
 * A tool's arguments as the object the rules read (`tool.input.command`). The input schema has
 * already refused arguments that are no object (`copilotToolArgs`), so `{}` here stands only for
 * none sent.
 */
export function copilotToolInput(args: unknown): JsonObject {
  return (copilotToolArgs(args) ?? {}) as JsonObject;
}

/** The hook context of a Copilot input, with the Copilot session under `client`. */
export function copilotHookContext(input: CopilotHookInput): JsonObject {
  const client = definedFields({
    kind: 'copilot',
    hook_event_name: input.hook_event_name,
    session_id: input.sessionId,
    transcript_path: input.transcriptPath,
    agent_name: input.hook_event_name === 'subagentStop' ? input.agentName : undefined,
    permission_prompt: input.hook_event_name === 'permissionRequest' ? true : undefined,
  });
  const base = { cwd: input.cwd, client };
  switch (input.hook_event_name) {
    case 'preToolUse':
    case 'permissionRequest':
      return definedFields({ ...base, tool: { name: input.toolName, input: copilotToolInput(input.toolArgs) } });
    case 'postToolUse':
      return definedFields({
        ...base,
        tool: definedFields({ name: input.toolName, input: copilotToolInput(input.toolArgs), ok: input.toolResult?.resultType === undefined ? undefined : input.toolResult.resultType === 'success', output: input.toolResult?.textResultForLlm }),
      });
    case 'postToolUseFailure':
      return definedFields({ ...base, tool: definedFields({ name: input.toolName, input: copilotToolInput(input.toolArgs), ok: false, output: input.error }) });
    case 'userPromptSubmitted':
      return definedFields({ ...base, prompt: input.prompt });
    case 'agentStop':
    case 'subagentStop':
      return definedFields({ ...base, stop_reason: input.stopReason, subagent: input.hook_event_name === 'subagentStop' });
    case 'sessionStart':
      return definedFields({ ...base, source: input.source });
    case 'sessionEnd':
      return definedFields({ ...base, reason: input.reason });
    case 'preCompact':
      return definedFields({ ...base, trigger: input.trigger, custom_instructions: input.customInstructions });
  }
}

/** How `event` is refused, with `reason`; `{}` where Copilot reads no answer (docs/coding-agents.md: not enforceable there). */
function blockedOutput(event: CopilotEvent, reason: string): CopilotHookOutput {
  if (event === 'preToolUse') return { permissionDecision: 'deny', permissionDecisionReason: reason };
  if (event === 'permissionRequest') return { behavior: 'deny', message: reason };
  if (event === 'agentStop' || event === 'subagentStop') return { decision: 'block', reason };
  return {};
}

/**
 * Copilot's fail-closed answer to a hook refused before evaluation. Without a known event the
 * answer carries both deny forms Copilot reads (preToolUse's and permissionRequest's): neither
 * schema can be honoured for an event nobody named, and a deny is the fail-closed reading.
 */
export function copilotRefusedOutput(event: string | undefined, error: Pick<AhpError, 'code' | 'message'>): CopilotHookOutput | Record<string, string> {
  const reason = `Blocked by AHP (fail-closed): ${error.message} (${error.code})`;
  const known = CopilotEventSchema.safeParse(event === undefined ? undefined : copilotEventName(event));
  return known.success ? blockedOutput(known.data, reason) : { permissionDecision: 'deny', permissionDecisionReason: reason, behavior: 'deny', message: reason };
}

/**
 * Copilot's answer for `decision`:
 * - block: preToolUse `permissionDecision: "deny"`, permissionRequest `behavior: "deny"`,
 *   agentStop/subagentStop `decision: "block"` (another turn with the reason); elsewhere `{}`;
 * - control with an operator's approval (their edits): preToolUse `permissionDecision: "allow"`
 *   with `modifiedArgs`;
 * - a rule's control alone at preToolUse, and any control at permissionRequest (its answer has no
 *   field for a changed input): deny with the adjusted input and the instruction to issue the call
 *   as adjusted ({@link adjustedCallReason}). The reference documents `modifiedArgs` with "allow"
 *   only, and a rewrite is no permission to skip Copilot's permission flow. Elsewhere refused;
 * - an operator's approval of exactly this call: permissionRequest `behavior: "allow"`;
 * - otherwise `{}`: no objection is not a permission, Copilot's own permission flow applies.
 */
export function toCopilotOutput(input: CopilotHookInput, decision: HookDecision): CopilotHookOutput {
  const event = input.hook_event_name;
  const verdict = verdictOf(decision);
  if (verdict.kind === 'block') return blockedOutput(event, verdict.reason);
  if (verdict.kind === 'modify') {
    if (event !== 'preToolUse' && event !== 'permissionRequest') return blockedOutput(event, unappliedModificationReason('Copilot', event, verdict.modifications));
    try {
      const modifiedArgs = applyModifications(copilotToolInput(input.toolArgs), verdict.modifications);
      if (event === 'permissionRequest' || !verdict.approved) return blockedOutput(event, adjustedCallReason(modifiedArgs, verdict.modifications));
      return { permissionDecision: 'allow', permissionDecisionReason: `Adjusted by AHP: ${modificationSummary(verdict.modifications)}`, modifiedArgs };
    } catch (error) {
      return blockedOutput(event, `Blocked by AHP: a rule's change to this call cannot be applied (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  if (event === 'permissionRequest' && verdict.approved) return { behavior: 'allow' };
  return {};
}

/**
 * A Copilot hook as answer inference reads it: preToolUse is a call about to run (Copilot obeys
 * its deny and its `modifiedArgs`), postToolUse and postToolUseFailure one that ran, agentStop
 * the end of the turn. Copilot sends no call id, so calls are matched by tool (and input).
 */
export function copilotAnswerView(input: CopilotHookInput): AnswerView {
  const event = input.hook_event_name;
  if (event === 'preToolUse') return { kind: 'pre-tool', event, tool: input.toolName, input: copilotToolInput(input.toolArgs) };
  if (event === 'postToolUse' || event === 'postToolUseFailure') return { kind: 'post-tool', event, tool: input.toolName, input: copilotToolInput(input.toolArgs) };
  return { kind: event === 'agentStop' ? 'stop' : 'other', event };
}

export const copilotDialect: HookDialect<CopilotHookInput> = Object.freeze({
  client: 'copilot',
  label: 'Copilot',
  sessionPrefix: 'gh',
  // Both of Copilot's formats: a VS Code compatible payload (PascalCase event, snake_case fields) is read as its camelCase twin.
  parse: (body: unknown) => parseInput(CopilotHookInputSchema, copilotCamelCaseInput(body), 'Copilot hook input'),
  event: (input: CopilotHookInput) => input.hook_event_name,
  trigger: (input: CopilotHookInput) => COPILOT_TRIGGERS[input.hook_event_name],
  phase: (input: CopilotHookInput) => (input.hook_event_name === 'sessionStart' ? 'start' : input.hook_event_name === 'sessionEnd' ? 'end' : 'during'),
  sessionKey: (input: CopilotHookInput) => input.sessionId,
  context: copilotHookContext,
  answer: toCopilotOutput,
  refused: copilotRefusedOutput,
  answerView: copilotAnswerView,
  permissionPrompt: (input: CopilotHookInput) => input.hook_event_name === 'permissionRequest',
  // Copilot's permissionRequest answer has no field for a notice: `{}` is its own permission flow.
  promptFallback: (_input: CopilotHookInput, fallback, reason) => (fallback === 'deny' ? blockedOutput('permissionRequest', reason) : {}),
} satisfies HookDialect<CopilotHookInput>);
