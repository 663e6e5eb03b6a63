/**
 * Claude Code's hooks as answer inference reads them (coding-agents/hook-answers.ts, shared with
 * Codex and Copilot): PreToolUse is a call about to run, PostToolUse one that ran, Stop the end
 * of the turn; the rest tells nothing about a pending signal.
 */
import type { ClaudeCodeHookInput, ClaudeCodePendingAnswer, ConsumptionAction, HookDecision } from '@ahp/protocol';
import { inferredActionOf, pendingAnswersOf, type AnswerView } from '../coding-agents/hook-answers.js';

export { inputDigest } from '../coding-agents/hook-answers.js';

/** `input` as answer inference reads it. */
export function claudeCodeAnswerView(input: ClaudeCodeHookInput): AnswerView {
  const event = input.hook_event_name;
  const toolUseId = typeof input['tool_use_id'] === 'string' ? input['tool_use_id'] : undefined;
  if (event === 'PreToolUse' || event === 'PostToolUse') return { kind: event === 'PreToolUse' ? 'pre-tool' : 'post-tool', event, tool: input.tool_name, input: input.tool_input, toolUseId };
  return { kind: event === 'Stop' ? 'stop' : 'other', event };
}

/** The block/control signals of a PreToolUse decision that Claude Code acted on, to be answered from its next hook. */
export function pendingAnswers(input: ClaudeCodeHookInput, decision: HookDecision): ClaudeCodePendingAnswer[] {
  return pendingAnswersOf(claudeCodeAnswerView(input), decision);
}

/** What Claude Code's next hook tells about a pending signal (see `inferredActionOf`). */
export function inferredAction(pending: ClaudeCodePendingAnswer, next: ClaudeCodeHookInput): ConsumptionAction | undefined {
  return inferredActionOf(pending, claudeCodeAnswerView(next));
}
