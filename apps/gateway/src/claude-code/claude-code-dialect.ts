/** Claude Code as a {@link HookDialect}: its mapping (claude-code-mapping.ts) plugged into the shared hook path. */
import { ClaudeCodeEventSchema, ClaudeCodeHookInputSchema, type ClaudeCodeHookInput } from '@ahp/protocol';
import { parseInput } from '../operator-api/api-error.js';
import type { HookDialect } from '../coding-agents/hook-dialect.js';
import { claudeCodeAnswerView } from './claude-code-answers.js';
import { CLAUDE_CODE_TRIGGERS, hookContext, promptFallbackOutput, refusedOutput, toClaudeCodeOutput } from './claude-code-mapping.js';

export const claudeCodeDialect: HookDialect<ClaudeCodeHookInput> = Object.freeze({
  client: 'claude-code',
  label: 'Claude Code',
  sessionPrefix: 'cc',
  parse: (body: unknown) => parseInput(ClaudeCodeHookInputSchema, body, 'Claude Code hook input'),
  event: (input: ClaudeCodeHookInput) => input.hook_event_name,
  trigger: (input: ClaudeCodeHookInput) => CLAUDE_CODE_TRIGGERS[input.hook_event_name],
  phase: (input: ClaudeCodeHookInput) => (input.hook_event_name === 'SessionStart' ? 'start' : input.hook_event_name === 'SessionEnd' ? 'end' : 'during'),
  sessionKey: (input: ClaudeCodeHookInput) => input.session_id,
  context: hookContext,
  answer: toClaudeCodeOutput,
  refused: (event, error) => {
    const known = ClaudeCodeEventSchema.safeParse(event);
    return refusedOutput(known.success ? known.data : undefined, error);
  },
  answerView: claudeCodeAnswerView,
  permissionPrompt: (input: ClaudeCodeHookInput) => input.hook_event_name === 'PermissionRequest',
  promptFallback: (_input: ClaudeCodeHookInput, fallback, reason) => promptFallbackOutput(fallback, reason),
} satisfies HookDialect<ClaudeCodeHookInput>);
