/**
 * OpenAI Codex as a {@link HookDialect}: which AHP trigger each Codex hook event is, what context
 * the oracles see, and how a decision reads as the answer Codex obeys (its per-event output
 * schemas, `CODEX_OUTPUT_SCHEMAS` in libs/protocol). Pure; docs/coding-agents.md has the same tables.
 */
import { applyModifications, CodexEventSchema, CodexHookInputSchema } from '@ahp/protocol';
import type { AhpError, CodexEvent, CodexHookInput, CodexHookOutput, HookDecision, HookTrigger, JsonObject } from '@ahp/protocol';
import { parseInput } from '../operator-api/api-error.js';
import { adjustedCallReason, modificationSummary, unappliedModificationReason, verdictOf } from './decision-text.js';
import type { AnswerView } from './hook-answers.js';
import { definedFields, type HookDialect } from './hook-dialect.js';

/**
 * The AHP trigger of each Codex event. PermissionRequest — Codex is about to ask its user (or
 * its reviewer) to approve a call — is `pre-tool-use` too: it is a gate before the same tool
 * call, and rules tell the two apart by `client.permission_prompt` (or `client.hook_event_name`).
 */
export const CODEX_TRIGGERS: Readonly<Record<CodexEvent, HookTrigger>> = Object.freeze({
  SessionStart: 'session-start',
  PreToolUse: 'pre-tool-use',
  PermissionRequest: 'pre-tool-use',
  PostToolUse: 'post-tool-use',
  UserPromptSubmit: 'user-prompt-submit',
  Stop: 'stop',
  PreCompact: 'pre-compact',
  PostCompact: 'post-compact',
  // A subagent starting is the start of a session of its own within the session: rules on
  // `session-start` (context for the model) apply, told apart by `source: "subagent"`.
  SubagentStart: 'session-start',
  // The end of a subagent's turn, as for Claude Code and Copilot: `subagent: true`.
  SubagentStop: 'stop',
  // The turn ended on a model API error: the end of a turn, told apart by `stop_reason` and
  // `client.error`. Codex cannot be kept working from it (only retried, which AHP does not ask).
  StopFailure: 'stop',
});

/** Events whose `hookSpecificOutput.additionalContext` Codex adds to the model's context. */
const CONTEXT_EVENTS: ReadonlySet<CodexEvent> = new Set(['SessionStart', 'PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SubagentStart']);

/** Events Codex lets a hook block with `decision: "block"` and a non-empty `reason`. */
const BLOCKABLE_EVENTS: ReadonlySet<CodexEvent> = new Set(['PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop']);

/** The hook context of a Codex input: `tool`, `prompt` or the event's own fields, plus `cwd` and the Codex session under `client`. */
export function codexHookContext(input: CodexHookInput): JsonObject {
  const client = definedFields({
    kind: 'codex',
    hook_event_name: input.hook_event_name,
    session_id: input.session_id,
    transcript_path: input.transcript_path ?? undefined,
    permission_mode: input.permission_mode,
    model: input.model,
    turn_id: input.turn_id,
    tool_use_id: 'tool_use_id' in input ? input.tool_use_id : undefined,
    permission_prompt: input.hook_event_name === 'PermissionRequest' ? true : undefined,
    agent_id: 'agent_id' in input ? input.agent_id : undefined,
    agent_name: 'agent_id' in input && input.agent_type !== '' ? input.agent_type : undefined,
    error: input.hook_event_name === 'StopFailure' ? input.error : undefined,
  });
  const base = { cwd: input.cwd, client };
  switch (input.hook_event_name) {
    case 'PreToolUse':
    case 'PermissionRequest':
      return definedFields({ ...base, tool: { name: input.tool_name, input: input.tool_input as JsonObject } });
    case 'PostToolUse':
      return definedFields({ ...base, tool: definedFields({ name: input.tool_name, input: input.tool_input, response: input.tool_response }) });
    case 'UserPromptSubmit':
      return definedFields({ ...base, prompt: input.prompt });
    case 'Stop':
      return definedFields({ ...base, stop_hook_active: input.stop_hook_active, subagent: false });
    case 'SessionStart':
      return definedFields({ ...base, source: input.source });
    case 'PreCompact':
    case 'PostCompact':
      return definedFields({ ...base, trigger: input.trigger });
    case 'SubagentStart':
      return definedFields({ ...base, source: 'subagent' });
    case 'SubagentStop':
      return definedFields({ ...base, stop_hook_active: input.stop_hook_active, subagent: true });
    case 'StopFailure':
      return definedFields({ ...base, stop_reason: `failure:${input.error}`.slice(0, 64), subagent: false });
  }
}

/** How `event` is refused, with `reason` (never empty: Codex ignores a block without one). */
function blockedOutput(event: CodexEvent, reason: string): CodexHookOutput {
  if (event === 'PreToolUse') return { hookSpecificOutput: { hookEventName: event, permissionDecision: 'deny', permissionDecisionReason: reason } };
  if (event === 'PermissionRequest') return { hookSpecificOutput: { hookEventName: event, decision: { behavior: 'deny', message: reason } } };
  if (BLOCKABLE_EVENTS.has(event)) return { decision: 'block', reason };
  // SessionStart, SubagentStart, StopFailure and the compaction events cannot be refused by a Codex hook: the user is told.
  return { systemMessage: reason };
}

/**
 * Codex's fail-closed answer to a hook refused before evaluation. An event that is not a Codex
 * event AHP maps (or none found) is answered `decision: "block"`, which PreToolUse (its legacy
 * form), PostToolUse, UserPromptSubmit and Stop all obey.
 */
export function codexRefusedOutput(event: string | undefined, error: Pick<AhpError, 'code' | 'message'>): CodexHookOutput {
  const reason = `Blocked by AHP (fail-closed): ${error.message} (${error.code})`;
  const known = CodexEventSchema.safeParse(event);
  return known.success ? blockedOutput(known.data, reason) : ({ decision: 'block', reason } as CodexHookOutput);
}

/**
 * Codex's answer for `decision` (docs/coding-agents.md, "Codex"):
 * - block: PreToolUse `permissionDecision: "deny"`, PermissionRequest `behavior: "deny"`,
 *   PostToolUse/UserPromptSubmit/Stop `decision: "block"`, the others a `systemMessage`;
 * - control with an operator's approval (their edits): PreToolUse `permissionDecision: "allow"`
 *   with `updatedInput`;
 * - a rule's control alone: PreToolUse and PermissionRequest deny with the adjusted input and the
 *   instruction to issue the call as adjusted ({@link adjustedCallReason}) — Codex has no "ask"
 *   to carry a changed input, and a rewrite is no permission to skip Codex's approval policy;
 * - control at PermissionRequest (Codex refuses `updatedInput` there): that deny too; at the
 *   other events the change cannot be handed back, so it is refused;
 * - an operator's approval of exactly this call: PermissionRequest `behavior: "allow"` — the
 *   remote answer to Codex's approval prompt; at PreToolUse nothing (Codex refuses a bare allow);
 * - otherwise no verdict: `{}` plus the warnings (`systemMessage`) and advice
 *   (`additionalContext`, where Codex reads it). No objection is not a permission: Codex's own
 *   approval policy still applies.
 */
export function toCodexOutput(input: CodexHookInput, decision: HookDecision): CodexHookOutput {
  const event = input.hook_event_name;
  const verdict = verdictOf(decision);
  if (verdict.kind === 'block') return blockedOutput(event, verdict.reason);
  if (verdict.kind === 'modify') {
    if (event !== 'PreToolUse' && event !== 'PermissionRequest') return blockedOutput(event, unappliedModificationReason('Codex', event, verdict.modifications));
    let updated: JsonObject;
    try {
      updated = applyModifications(input.tool_input as JsonObject, verdict.modifications);
    } catch (error) {
      // A change that cannot be applied must not let the unchanged call run.
      return blockedOutput(event, `Blocked by AHP: a rule's change to this call cannot be applied (${error instanceof Error ? error.message : String(error)})`);
    }
    if (event === 'PermissionRequest' || !verdict.approved) return blockedOutput(event, adjustedCallReason(updated, verdict.modifications));
    return {
      hookSpecificOutput: { hookEventName: event, permissionDecision: 'allow', permissionDecisionReason: `Adjusted by AHP: ${modificationSummary(verdict.modifications)}`, updatedInput: updated },
    };
  }
  const output: Record<string, unknown> = {};
  if (verdict.warnings !== undefined) output['systemMessage'] = verdict.warnings;
  if (event === 'PermissionRequest' && verdict.approved) output['hookSpecificOutput'] = { hookEventName: event, decision: { behavior: 'allow' } };
  else if (verdict.advice !== undefined && CONTEXT_EVENTS.has(event)) output['hookSpecificOutput'] = { hookEventName: event, additionalContext: verdict.advice };
  return output as CodexHookOutput;
}

/**
 * A Codex hook as answer inference reads it: PreToolUse is a call about to run (Codex obeys its
 * deny and, in the targeted release, its `updatedInput`), PostToolUse one that ran, Stop the end
 * of the turn. A subagent's stop or a failed turn tells nothing certain about the main agent's calls.
 */
export function codexAnswerView(input: CodexHookInput): AnswerView {
  const event = input.hook_event_name;
  if (event === 'PreToolUse' || event === 'PostToolUse') return { kind: event === 'PreToolUse' ? 'pre-tool' : 'post-tool', event, tool: input.tool_name, input: input.tool_input, toolUseId: input.tool_use_id };
  return { kind: event === 'Stop' ? 'stop' : 'other', event };
}

export const codexDialect: HookDialect<CodexHookInput> = Object.freeze({
  client: 'codex',
  label: 'Codex',
  sessionPrefix: 'cx',
  parse: (body: unknown) => parseInput(CodexHookInputSchema, body, 'Codex hook input'),
  event: (input: CodexHookInput) => input.hook_event_name,
  trigger: (input: CodexHookInput) => CODEX_TRIGGERS[input.hook_event_name],
  // Codex reports no session end: its sessions age out of the fleet (AHP_CLAUDE_CODE_PRESENCE_TTL_MS).
  // A subagent starting is not the session starting.
  phase: (input: CodexHookInput) => (input.hook_event_name === 'SessionStart' ? 'start' : 'during'),
  sessionKey: (input: CodexHookInput) => input.session_id,
  context: codexHookContext,
  answer: toCodexOutput,
  refused: codexRefusedOutput,
  answerView: codexAnswerView,
  permissionPrompt: (input: CodexHookInput) => input.hook_event_name === 'PermissionRequest',
  // `{}` plus the notice: Codex's own approval flow asks (its PermissionRequest takes systemMessage).
  promptFallback: (_input: CodexHookInput, fallback, reason) => (fallback === 'deny' ? blockedOutput('PermissionRequest', reason) : { systemMessage: reason }),
} satisfies HookDialect<CodexHookInput>);
