import { randomUUID } from 'node:crypto';
import { aggregateSignals, ClaudeCodeHookOutputSchema, parseHookContext, type ClaudeCodeHookInput, type Signal, type SignalPayload } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { claudeCodeDialect } from './claude-code-dialect.js';
import { CLAUDE_CODE_TRIGGERS, hookContext, toClaudeCodeOutput } from './claude-code-mapping.js';

const HOOK_ID = randomUUID();
const NOW = '2026-01-01T00:00:00.000Z';
const REQUEST = `req_tool_${HOOK_ID}`;
const PRE: ClaudeCodeHookInput = {
  session_id: 's1',
  cwd: '/app',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'rm -rf build' },
};

function signal(type: string, payload: SignalPayload): Signal {
  const intensity = payload.level === 'blocking' ? 'block' : payload.level === 'controlling' ? 'control' : 'aid';
  return { header: { id: randomUUID(), type, timestamp: NOW, source: 'risky-commands', intensity, correlation_id: HOOK_ID }, context: {}, payload };
}

const decisionOf = (...signals: Signal[]) => aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals, now: NOW });

describe('toClaudeCodeOutput for tool approvals', () => {
  it('denies a call that waits for an operator, telling Claude to retry the same call once approved', () => {
    const waiting = signal('approval-required', {
      level: 'blocking',
      decision: 'deny',
      reason: `rm -rf build is destructive. Waiting for an operator's decision on approval request ${REQUEST} (deadline ${NOW}).`,
      resolvable: true,
      resolution_path: ['wait'],
      resolution: { kind: 'await_approval', request_id: REQUEST, deadline: NOW },
    });
    const output = toClaudeCodeOutput(PRE, decisionOf(waiting));
    expect(output.hookSpecificOutput?.permissionDecision).toBe('deny');
    const reason = output.hookSpecificOutput?.permissionDecisionReason ?? '';
    expect(reason).toBe(
      `AHP: this call waits for an operator's approval (request ${REQUEST}, until ${NOW}): rm -rf build is destructive. Do not work around it. ` +
        'Once an operator has approved it, retry exactly the same call (same tool, same input); a changed call needs a new approval. ' +
        'If it is rejected or expires, the retry is denied with the reason.',
    );
  });

  it('gives an approved call with the operator\'s modifications as updatedInput', () => {
    const approved = signal('approval-approved', {
      level: 'controlling',
      decision: 'allow_with_modification',
      modifications: [{ target: 'command', original: 'rm -rf build', updated: 'rm -rf build/tmp', reason: `modified by op-1 when approving request ${REQUEST}` }],
      reversible: false,
    });
    const output = toClaudeCodeOutput(PRE, decisionOf(approved));
    expect(output.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow', updatedInput: { command: 'rm -rf build/tmp' } });
  });

  it('denies a rejected call with the operator\'s feedback', () => {
    const rejected = signal('approval-rejected', { level: 'blocking', decision: 'deny', reason: 'not on a Friday', resolvable: false, resolution_path: [] });
    expect(toClaudeCodeOutput(PRE, decisionOf(rejected)).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: 'Blocked by AHP: not on a Friday',
    });
  });

  it('passes an approval without modifications on as context, granting nothing by itself', () => {
    const approved = signal('approval-approved', { level: 'aiding', decision: 'suggest', context: `Approved by op-1 (approval request ${REQUEST})`, suggestions: [] });
    const output = toClaudeCodeOutput(PRE, decisionOf(approved));
    expect(output.hookSpecificOutput).toEqual({ hookEventName: 'PreToolUse', additionalContext: `AHP: Approved by op-1 (approval request ${REQUEST})` });
  });
});

describe('toClaudeCodeOutput for PermissionRequest: the permission dialog decided remotely', () => {
  const PERMISSION: ClaudeCodeHookInput = { ...PRE, hook_event_name: 'PermissionRequest' };
  const waiting = signal('approval-required', {
    level: 'blocking',
    decision: 'deny',
    reason: `rm -rf build is destructive. Waiting for an operator's decision on approval request ${REQUEST} (deadline ${NOW}).`,
    resolvable: true,
    resolution_path: ['wait'],
    resolution: { kind: 'await_approval', request_id: REQUEST, deadline: NOW },
  });

  function answer(...signals: Signal[]) {
    const output = toClaudeCodeOutput(PERMISSION, decisionOf(...signals));
    expect(ClaudeCodeHookOutputSchema.safeParse(output).success).toBe(true);
    return output;
  }

  it('maps to pre-tool-use with the permission prompt marked for the rules', () => {
    expect(CLAUDE_CODE_TRIGGERS.PermissionRequest).toBe('pre-tool-use');
    const context = hookContext(PERMISSION);
    expect(context).toMatchObject({ tool: { name: 'Bash', input: { command: 'rm -rf build' } }, client: { kind: 'claude-code', hook_event_name: 'PermissionRequest', permission_prompt: true } });
    expect(parseHookContext('pre-tool-use', context)).toMatchObject({ ok: true });
  });

  it('leaves the dialog to Claude Code when nothing is decided', () => {
    expect(answer()).toEqual({});
  });

  it('denies while an operator has not decided, and allows once approved — with the operator\'s edits as updatedInput', () => {
    expect(answer(waiting).hookSpecificOutput?.decision).toMatchObject({ behavior: 'deny', message: expect.stringContaining(`waits for an operator's approval (request ${REQUEST}`) as unknown });
    const approved = signal('approval-approved', { level: 'aiding', decision: 'suggest', context: `Approved by op-1 (approval request ${REQUEST})`, suggestions: [] });
    expect(answer(approved).hookSpecificOutput).toEqual({ hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } });
    const edited = signal('approval-approved', {
      level: 'controlling',
      decision: 'allow_with_modification',
      modifications: [{ target: 'command', original: 'rm -rf build', updated: 'rm -rf build/tmp', reason: `modified by op-1 when approving request ${REQUEST}` }],
      reversible: false,
    });
    expect(answer(edited).hookSpecificOutput).toEqual({ hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: { command: 'rm -rf build/tmp' } } });
  });

  it('denies with the operator\'s feedback, and a change that cannot be applied', () => {
    const rejected = signal('approval-rejected', { level: 'blocking', decision: 'deny', reason: 'not on a Friday', resolvable: false, resolution_path: [] });
    expect(answer(rejected).hookSpecificOutput?.decision).toEqual({ behavior: 'deny', message: 'Blocked by AHP: not on a Friday' });
    const broken = signal('permission-check', { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: '__proto__.x', original: null, updated: 1, reason: 'r' }], reversible: true });
    expect(answer(broken).hookSpecificOutput?.decision).toMatchObject({ behavior: 'deny' });
  });
});


describe('claudeCodeDialect: a held PermissionRequest nobody decided in time', () => {
  it('shows Claude Code\'s own dialog with a notice (dialog), or denies (deny); only PermissionRequest is held', () => {
    const PERMISSION: ClaudeCodeHookInput = { ...PRE, hook_event_name: 'PermissionRequest' };
    const dialog = claudeCodeDialect.promptFallback(PERMISSION, 'dialog', 'AHP: not decided in time');
    expect(dialog).toEqual({ systemMessage: 'AHP: not decided in time' });
    const deny = claudeCodeDialect.promptFallback(PERMISSION, 'deny', 'AHP: not decided in time');
    expect(deny).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'AHP: not decided in time' } } });
    for (const output of [dialog, deny]) expect(ClaudeCodeHookOutputSchema.safeParse(output).success).toBe(true);
    expect(claudeCodeDialect.permissionPrompt(PERMISSION)).toBe(true);
    expect(claudeCodeDialect.permissionPrompt(PRE)).toBe(false);
  });
});
