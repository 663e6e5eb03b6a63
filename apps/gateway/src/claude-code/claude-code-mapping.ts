/**
 * The translation between Claude Code's hook format and AHP's: which trigger an event is, what
 * context the oracles see, and how a {@link HookDecision} reads as Claude Code's answer. Pure, so
 * the rules are tested without a gateway; docs/claude-code.md has the same tables.
 */
import { LIMITS, applyModifications, awaitingApproval } from '@ahp/protocol';
import type {
  AhpError,
  ClaudeCodeEvent,
  ClaudeCodeHookInput,
  ClaudeCodeHookOutput,
  ClaudeCodeHookSpecificOutput,
  HookDecision,
  HookTrigger,
  JsonObject,
  PromptFallback,
} from '@ahp/protocol';
import { adjustedCallReason, advice, approvalWaitReason, blockReason, modificationSummary, operatorApproved, unappliedModificationReason, verdictOf } from '../coding-agents/decision-text.js';

// Shared with the other dialects and the MCP gateway; re-exported for the Claude Code callers.
export { advice, approvalWaitReason, blockReason };

/** The AHP trigger of each Claude Code event; Stop and SubagentStop are both the end of a turn. */
export const CLAUDE_CODE_TRIGGERS: Readonly<Record<ClaudeCodeEvent, HookTrigger>> = Object.freeze({
  PreToolUse: 'pre-tool-use',
  PostToolUse: 'post-tool-use',
  UserPromptSubmit: 'user-prompt-submit',
  Stop: 'stop',
  SubagentStop: 'stop',
  SessionStart: 'session-start',
  SessionEnd: 'session-end',
  PreCompact: 'pre-compact',
  // The permission dialog of the same call: a gate before it, told apart by `client.permission_prompt`.
  PermissionRequest: 'pre-tool-use',
  // Agent teams, told apart by `client.team_event`. A teammate going idle ends its turn, and a
  // task marked completed is a claim that work is done: both are where the completion gates of
  // `stop` belong, and a block keeps the teammate working. `task-complete` is not used because it
  // only aids (it reports a finished fact), while Claude Code asks before the task is completed.
  // A task created went through the TaskCreate tool's PreToolUse already (where rules can refuse
  // it): its creation is the tool's outcome.
  TeammateIdle: 'stop',
  TaskCompleted: 'stop',
  TaskCreated: 'post-tool-use',
});

/** `client.team_event` of each agent-team event. */
const TEAM_EVENTS = Object.freeze({ TeammateIdle: 'teammate_idle', TaskCreated: 'task_created', TaskCompleted: 'task_completed' } as const);

/** Claude Code's agent-team events (docs/claude-code.md, "Agent teams"). */
export type ClaudeCodeTeamEvent = keyof typeof TEAM_EVENTS;

/** The agent-team event a hook body names, or undefined (the body is not parsed: it may be malformed). */
export function teamEventOf(body: unknown): ClaudeCodeTeamEvent | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const event = (body as Record<string, unknown>)['hook_event_name'];
  return typeof event === 'string' && Object.hasOwn(TEAM_EVENTS, event) ? (event as ClaudeCodeTeamEvent) : undefined;
}

/** Events besides the team events where an HTTP error would let something proceed past the rules: a tool call, a permission dialog. */
const GATED_EVENTS: ReadonlySet<string> = new Set(['PreToolUse', 'PermissionRequest']);

/** The event of a body that failed the schema, when it is one whose refusal must be its block (see {@link GATED_EVENTS}). */
export function gatedEventOf(body: unknown): ClaudeCodeEvent | undefined {
  const team = teamEventOf(body);
  if (team !== undefined) return team;
  if (typeof body !== 'object' || body === null) return undefined;
  const event = (body as Record<string, unknown>)['hook_event_name'];
  return typeof event === 'string' && GATED_EVENTS.has(event) ? (event as ClaudeCodeEvent) : undefined;
}

/** The Claude Code tool that creates a task of the team's list (TaskCreated reports it). */
export const TASK_CREATE_TOOL = 'TaskCreate';

/** Events whose `hookSpecificOutput.additionalContext` Claude Code adds to the model's context. */
const CONTEXT_EVENTS: ReadonlySet<ClaudeCodeEvent> = new Set(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart']);

/** Events Claude Code lets a hook block with `decision: "block"` (PreToolUse uses permissionDecision). */
const BLOCKABLE_EVENTS: ReadonlySet<ClaudeCodeEvent> = new Set([
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  // A block keeps the teammate working (TeammateIdle), leaves the task open (TaskCompleted) or
  // rolls its creation back (TaskCreated), with the reason as the teammate's feedback.
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
]);

/** Longest task description kept in the hook context (the context's text limit). */
const MAX_TASK_DESCRIPTION = LIMITS.maxText;

/** The object without its undefined fields: hook context must be plain JSON. */
function defined(fields: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as JsonObject;
}

/**
 * The hook context the oracles evaluate, in AHP's shape: `tool: {name, input, response?}` for
 * tool events, `prompt` for UserPromptSubmit, the event's own fields otherwise, plus `cwd` and
 * the Claude Code session under `claude`. Tool input and response came in as JSON, so they are JSON.
 */
export function hookContext(input: ClaudeCodeHookInput): JsonObject {
  const claude = defined({
    session_id: input.session_id,
    transcript_path: input.transcript_path,
    permission_mode: input.permission_mode,
    hook_event_name: input.hook_event_name,
  });
  const base = { cwd: input.cwd, claude };
  switch (input.hook_event_name) {
    case 'PreToolUse':
      return defined({ ...base, tool: { name: input.tool_name, input: input.tool_input as JsonObject } });
    case 'PermissionRequest':
      return defined({
        ...base,
        tool: { name: input.tool_name, input: input.tool_input as JsonObject },
        client: { kind: 'claude-code', hook_event_name: input.hook_event_name, permission_prompt: true },
      });
    case 'PostToolUse':
      return defined({ ...base, tool: defined({ name: input.tool_name, input: input.tool_input, response: input.tool_response }) });
    case 'UserPromptSubmit':
      return defined({ ...base, prompt: input.prompt });
    case 'Stop':
    case 'SubagentStop':
      return defined({ ...base, stop_hook_active: input.stop_hook_active, subagent: input.hook_event_name === 'SubagentStop' });
    case 'SessionStart':
      return defined({ ...base, source: input.source });
    case 'SessionEnd':
      return defined({ ...base, reason: input.reason });
    case 'PreCompact':
      return defined({ ...base, trigger: input.trigger, custom_instructions: input.custom_instructions ?? undefined });
    case 'TeammateIdle':
      return defined({ ...base, subagent: false, client: teamClient(input) });
    case 'TaskCompleted':
      return defined({ ...base, subagent: false, client: teamClient(input) });
    case 'TaskCreated':
      return defined({
        ...base,
        tool: { name: TASK_CREATE_TOOL, input: defined({ task_id: input.task_id, subject: input.task_subject, description: input.task_description }) },
        client: teamClient(input),
      });
  }
}

type TeamInput = Extract<ClaudeCodeHookInput, { hook_event_name: ClaudeCodeTeamEvent }>;

/** `client` of an agent-team event: its mark, the team, the teammate and the task. */
function teamClient(input: TeamInput): JsonObject {
  const task =
    input.hook_event_name === 'TeammateIdle'
      ? undefined
      : defined({ id: input.task_id, subject: input.task_subject, description: input.task_description?.slice(0, MAX_TASK_DESCRIPTION) });
  return defined({
    kind: 'claude-code',
    hook_event_name: input.hook_event_name,
    team_event: TEAM_EVENTS[input.hook_event_name],
    team_name: input.team_name,
    teammate_name: input.teammate_name,
    task,
  });
}

/** How `event` is blocked, with `reason` for Claude and the user (see {@link toClaudeCodeOutput}). */
function blockedOutput(event: ClaudeCodeEvent, reason: string): ClaudeCodeHookOutput {
  if (event === 'PermissionRequest') return { hookSpecificOutput: { hookEventName: event, decision: { behavior: 'deny', message: reason } } };
  if (event === 'PreToolUse') return { hookSpecificOutput: { hookEventName: event, permissionDecision: 'deny', permissionDecisionReason: reason } };
  if (BLOCKABLE_EVENTS.has(event)) return { decision: 'block', reason };
  return { systemMessage: reason };
}

/**
 * Claude Code's answer to a hook the gateway refuses to evaluate because of the request itself —
 * over the agent's rate limit, over the size limit, a shape the hook context limits forbid. The
 * agent (or the model steering it) can cause each of these, so they fail closed whatever failure
 * policy is configured: a fail-open answer would let a tool call through by making it big or
 * frequent enough. The reason reads like a failure-policy block. When the event is not known
 * (the body was not read far enough, or names none), the answer is `decision: "block"`, which
 * every blockable event obeys and Claude Code reads as "deny" for PreToolUse.
 */
export function refusedOutput(event: ClaudeCodeEvent | undefined, error: Pick<AhpError, 'code' | 'message'>): ClaudeCodeHookOutput {
  const reason = `Blocked by AHP (fail-closed): ${error.message} (${error.code})`;
  return event === undefined ? { decision: 'block', reason } : blockedOutput(event, reason);
}

/**
 * Claude Code's answer for `decision`:
 * - block: PreToolUse `permissionDecision: "deny"`; PostToolUse, UserPromptSubmit, Stop,
 *   SubagentStop `decision: "block"`; other events cannot be blocked, the reason becomes a
 *   `systemMessage`. Each carries the reason (the oracles', or the failure policy's cause). A
 *   block that awaits an operator's approval is a "deny" telling Claude to retry the same call
 *   once it is approved ({@link approvalWaitReason}).
 * - control (PreToolUse): `updatedInput`, the tool input with the modifications applied, with
 *   `permissionDecision: "ask"` — Claude Code's own permission flow runs on the adjusted call and
 *   shows it for confirmation: a rule's rewrite is no permission for the rest of the call. Only
 *   an operator's approval (with their edits) answers `"allow"` ({@link operatorApproved}). At
 *   any other event the change cannot be handed back, so the decision is answered as a block
 *   ({@link unappliedModificationReason}).
 * - prompt: the warnings as `systemMessage` (for the user) and `additionalContext` (for Claude).
 *   Never "ask": docs/spec/hooks-and-oracles.md#triggers allows only block and control at `pre-tool-use`, so no decision for
 *   PreToolUse carries a prompt; a call that needs a person's yes is a `require_approval` rule.
 * - aid: the suggestions as `additionalContext`.
 * - nothing: `{}`. No "allow" is ever granted without an operator's approval: neither having no
 *   objection nor rewriting a field may skip Claude Code's own permission rules.
 */
export function toClaudeCodeOutput(input: ClaudeCodeHookInput, decision: HookDecision): ClaudeCodeHookOutput {
  if (input.hook_event_name === 'PermissionRequest') return permissionRequestOutput(input.tool_input as JsonObject, decision);
  const event = input.hook_event_name;
  if (!decision.allowed) {
    const waiting = awaitingApproval(decision);
    return blockedOutput(event, waiting === undefined ? blockReason(decision) : approvalWaitReason(waiting));
  }
  if (decision.modifications.length > 0 && event !== 'PreToolUse') {
    // Only PreToolUse can hand a changed input back. Letting the operation through unchanged
    // would skip the rule that wanted it changed, so it is refused instead (fail closed).
    const reason = unappliedModificationReason('Claude Code', event, decision.modifications);
    return BLOCKABLE_EVENTS.has(event) ? { decision: 'block', reason } : { systemMessage: reason };
  }
  const output: ClaudeCodeHookOutput = {};
  const specific: ClaudeCodeHookSpecificOutput = { hookEventName: event };
  const text = advice(decision);
  if (decision.warnings.length > 0) output.systemMessage = decision.warnings.map((warning) => `AHP: ${warning}`).join('\n');
  if (text !== undefined && CONTEXT_EVENTS.has(event)) specific.additionalContext = text;
  if (event === 'PreToolUse' && decision.modifications.length > 0) {
    let updated: JsonObject;
    try {
      updated = applyModifications(input.tool_input as JsonObject, decision.modifications);
    } catch (error) {
      // A change that cannot be applied must not let the unchanged call run.
      const reason = `Blocked by AHP: a rule's change to this call cannot be applied (${error instanceof Error ? error.message : String(error)})`;
      return { hookSpecificOutput: { hookEventName: event, permissionDecision: 'deny', permissionDecisionReason: reason } };
    }
    const approved = operatorApproved(decision);
    specific.updatedInput = updated;
    specific.permissionDecision = approved ? 'allow' : 'ask';
    specific.permissionDecisionReason = approved
      ? `Adjusted by AHP: ${modificationSummary(decision.modifications)}`
      : `Adjusted by AHP (${modificationSummary(decision.modifications)}): confirm the adjusted call`;
  }
  if (Object.keys(specific).length > 1) output.hookSpecificOutput = specific;
  return output;
}

/**
 * Claude Code's answer to its permission dialog (PermissionRequest), decided remotely:
 * - block: `behavior: "deny"` with the reason as `message` — a call waiting for an operator too,
 *   with the instruction to retry it once approved ({@link approvalWaitReason});
 * - an operator's approval of exactly this call (or a session grant): `behavior: "allow"`, the
 *   dialog is not shown; with the operator's edits (a control), `updatedInput` carries them;
 * - a rule's control without an operator's approval: `behavior: "deny"` with the adjusted input
 *   and the instruction to issue the call as adjusted ({@link adjustedCallReason}). The answer
 *   cannot carry a changed input without granting it, and a rewrite is no permission: the call
 *   sent again has nothing left to rewrite and gets the dialog;
 * - otherwise `{}` (warnings as `systemMessage`): Claude Code shows its own dialog.
 */
function permissionRequestOutput(toolInput: JsonObject, decision: HookDecision): ClaudeCodeHookOutput {
  const verdict = verdictOf(decision);
  if (verdict.kind === 'block') return blockedOutput('PermissionRequest', verdict.reason);
  if (verdict.kind === 'modify') {
    try {
      const updatedInput = applyModifications(toolInput, verdict.modifications);
      if (!verdict.approved) return blockedOutput('PermissionRequest', adjustedCallReason(updatedInput, verdict.modifications));
      return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput } }, systemMessage: `AHP: adjusted (${modificationSummary(verdict.modifications)})` };
    } catch (error) {
      return blockedOutput('PermissionRequest', `Blocked by AHP: a rule's change to this call cannot be applied (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const output: ClaudeCodeHookOutput = verdict.warnings === undefined ? {} : { systemMessage: verdict.warnings };
  if (verdict.approved) output.hookSpecificOutput = { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } };
  return output;
}

/**
 * The answer to a PermissionRequest held for an operator who did not decide in time
 * (PermissionHold): `dialog` carries no decision, so Claude Code shows its own dialog (the reason
 * as a `systemMessage` for the user); `deny` refuses the call with the reason.
 */
export function promptFallbackOutput(fallback: PromptFallback, reason: string): ClaudeCodeHookOutput {
  return fallback === 'deny' ? blockedOutput('PermissionRequest', reason) : { systemMessage: reason };
}
