/** `ahp hook claude-code`: Claude Code's command hook form, for setups without `http` hooks (docs/claude-code.md). */
import { CLAUDE_CODE_EVENTS, ClaudeCodeHookOutputSchema, type ClaudeCodeHookOutput } from '@ahp/protocol/claude-code-output';
import type { CliIo } from './cli-errors.js';
import { runCommandHook, type CommandHookDialect, type HookValues } from './hook-command.js';

/** The answer when the gateway could not be asked: deny a tool call, let anything else through with a notice. */
export function unreachableAnswer(event: unknown, cause: string): ClaudeCodeHookOutput {
  const reason = `AHP could not be asked (${cause}); denied because tool calls fail closed`;
  if (event === 'PreToolUse') return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
  // The permission dialog: no answer shows it, and the user decides, as without AHP.
  return { systemMessage: `AHP could not be asked (${cause}); continuing without its checks` };
}

/**
 * Claude Code's agent-team events, whose documented block is the command's exit status 2 with the
 * feedback on stderr (the teammate keeps working, the task stays open, its creation is undone).
 */
const EXIT_BLOCKED_EVENTS: readonly unknown[] = ['TeammateIdle', 'TaskCreated', 'TaskCompleted'];

/** The feedback of a team event's block, answered as exit 2; undefined for every other answer. */
export function teamBlockFeedback(event: unknown, output: unknown): string | undefined {
  if (!EXIT_BLOCKED_EVENTS.includes(event)) return undefined;
  const answer = output as ClaudeCodeHookOutput;
  return answer.decision === 'block' ? (answer.reason ?? 'Blocked by AHP') : undefined;
}

export const CLAUDE_CODE_COMMAND_HOOK: CommandHookDialect = Object.freeze({
  agent: 'Claude Code',
  route: '/v1/hooks/claude-code',
  permissionEvent: 'PermissionRequest',
  refuseUnknownEvents: false,
  knows: (event: unknown) => (CLAUDE_CODE_EVENTS as readonly unknown[]).includes(event),
  checked: (_event: unknown, answer: unknown) => {
    const parsed = ClaudeCodeHookOutputSchema.safeParse(answer);
    return parsed.success ? parsed.data : undefined;
  },
  unreachable: unreachableAnswer,
  blockingExit: teamBlockFeedback,
});

/** Runs Claude Code's command hook (see runCommandHook). */
export function hookClaudeCode(values: HookValues, io: CliIo, stdin?: AsyncIterable<Buffer | string>): Promise<number> {
  return runCommandHook(CLAUDE_CODE_COMMAND_HOOK, values, io, stdin);
}
