import { describe, expect, it } from 'vitest';
import { ClaudeCodeHookInputSchema, ClaudeCodeHookOutputSchema } from './claude-code.js';

describe('ClaudeCodeHookInputSchema', () => {
  it('keeps fields Claude Code adds instead of rejecting them', () => {
    const input = {
      session_id: 'abc',
      transcript_path: '/t.jsonl',
      cwd: '/app',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: '/app/a.ts', content: 'x' },
      tool_use_id: 'toolu_1',
      a_field_of_a_later_release: true,
    };
    expect(ClaudeCodeHookInputSchema.parse(input)).toEqual(input);
  });

  it('rejects a tool event without its tool and an event AHP does not map', () => {
    expect(ClaudeCodeHookInputSchema.safeParse({ session_id: 'a', hook_event_name: 'PostToolUse', tool_input: {} }).success).toBe(false);
    expect(ClaudeCodeHookInputSchema.safeParse({ session_id: 'a', hook_event_name: 'Notification', message: 'hi' }).success).toBe(false);
  });
});

describe('ClaudeCodeHookOutputSchema', () => {
  it('accepts the answers the gateway gives and refuses unknown fields (they are ours to get right)', () => {
    expect(ClaudeCodeHookOutputSchema.safeParse({ decision: 'block', reason: 'no' }).success).toBe(true);
    expect(
      ClaudeCodeHookOutputSchema.safeParse({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'ls' } } }).success,
    ).toBe(true);
    expect(ClaudeCodeHookOutputSchema.safeParse({ decision: 'approve' }).success).toBe(false);
    expect(ClaudeCodeHookOutputSchema.safeParse({ permissionDecision: 'deny' }).success).toBe(false);
  });
});
