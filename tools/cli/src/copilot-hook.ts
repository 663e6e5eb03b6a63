/**
 * `ahp hook copilot <event>`: GitHub Copilot's command hook (its CLI and the cloud agent's
 * repository hooks). Copilot's camelCase payloads do not name their event, so the hooks file
 * names it on the command line (`ahp init copilot` writes one command per event). The gateway's
 * answer is checked against the event's output schema (docs/coding-agents.md).
 */
import { COPILOT_EVENTS, COPILOT_OUTPUT_SCHEMAS, COPILOT_UNEVALUATED_EVENTS, copilotEventName, type CopilotEvent, type CopilotHookOutput } from '@ahp/protocol/copilot-output';
import type { CliIo } from './cli-errors.js';
import { runCommandHook, type CommandHookDialect, type HookValues } from './hook-command.js';

function isCopilotEvent(event: unknown): event is CopilotEvent {
  return (COPILOT_EVENTS as readonly unknown[]).includes(event);
}

/**
 * The answer when the gateway could not be asked: a tool call (preToolUse) and a permission
 * prompt (permissionRequest) are denied — tool calls fail closed; the other events read no answer.
 */
export function copilotUnreachableAnswer(event: unknown, cause: string): CopilotHookOutput {
  const reason = `AHP could not be asked (${cause}); denied because tool calls fail closed`;
  if (event === 'preToolUse') return { permissionDecision: 'deny', permissionDecisionReason: reason };
  if (event === 'permissionRequest') return { behavior: 'deny', message: reason };
  return {};
}

export const COPILOT_COMMAND_HOOK: CommandHookDialect = Object.freeze({
  agent: 'Copilot',
  route: '/v1/hooks/copilot',
  permissionEvent: 'permissionRequest',
  refuseUnknownEvents: true,
  eventOnCommandLine: true,
  // A hooks file in the VS Code compatible format names PascalCase events (the gateway renames the snake_case fields).
  canonicalEvent: copilotEventName,
  unevaluated: COPILOT_UNEVALUATED_EVENTS,
  knows: isCopilotEvent,
  checked: (event: unknown, answer: unknown) => {
    if (!isCopilotEvent(event)) return undefined;
    const parsed = COPILOT_OUTPUT_SCHEMAS[event].safeParse(answer);
    return parsed.success ? parsed.data : undefined;
  },
  unreachable: copilotUnreachableAnswer,
});

/** Runs Copilot's command hook for `event` (see runCommandHook). */
export function hookCopilot(event: string | undefined, values: HookValues, io: CliIo, stdin?: AsyncIterable<Buffer | string>): Promise<number> {
  return runCommandHook(COPILOT_COMMAND_HOOK, values, io, stdin, event);
}
