/**
 * `ahp hook codex`: OpenAI Codex's command hook (Codex has no HTTP hooks). Codex parses each
 * event's answer strictly, so the gateway's answer is checked against the event's own output
 * schema before it is printed (docs/coding-agents.md).
 */
import { CODEX_EVENTS, CODEX_OUTPUT_SCHEMAS, type CodexEvent, type CodexHookOutput } from '@ahp/protocol/codex-output';
import type { CliIo } from './cli-errors.js';
import { runCommandHook, type CommandHookDialect, type HookValues } from './hook-command.js';

function isCodexEvent(event: unknown): event is CodexEvent {
  return (CODEX_EVENTS as readonly unknown[]).includes(event);
}

/**
 * The answer when the gateway could not be asked: a tool call (PreToolUse) and an approval prompt
 * (PermissionRequest) are denied — tool calls fail closed; anything else goes on with a notice.
 */
export function codexUnreachableAnswer(event: unknown, cause: string): CodexHookOutput {
  const reason = `AHP could not be asked (${cause}); denied because tool calls fail closed`;
  if (event === 'PreToolUse') return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
  if (event === 'PermissionRequest') return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: reason } } };
  return { systemMessage: `AHP could not be asked (${cause}); continuing without its checks` };
}

export const CODEX_COMMAND_HOOK: CommandHookDialect = Object.freeze({
  agent: 'Codex',
  route: '/v1/hooks/codex',
  permissionEvent: 'PermissionRequest',
  refuseUnknownEvents: true,
  knows: isCodexEvent,
  checked: (event: unknown, answer: unknown) => {
    if (!isCodexEvent(event)) return undefined;
    const parsed = CODEX_OUTPUT_SCHEMAS[event].safeParse(answer);
    return parsed.success ? parsed.data : undefined;
  },
  unreachable: codexUnreachableAnswer,
});

/** Runs Codex's command hook (see runCommandHook). */
export function hookCodex(values: HookValues, io: CliIo, stdin?: AsyncIterable<Buffer | string>): Promise<number> {
  return runCommandHook(CODEX_COMMAND_HOOK, values, io, stdin);
}
