import { randomUUID } from 'node:crypto';
import { aggregateSignals, type ClaudeCodeHookInput, type ClaudeCodePendingAnswer, type Signal } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { inferredAction, inputDigest, pendingAnswers } from './claude-code-answers.js';

const common = { session_id: 's-1' };
const pre = (tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}): ClaudeCodeHookInput =>
  ({ ...common, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, ...extra }) as ClaudeCodeHookInput;
const post = (tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}): ClaudeCodeHookInput =>
  ({ ...common, hook_event_name: 'PostToolUse', tool_name: tool, tool_input: input, tool_response: {}, ...extra }) as ClaudeCodeHookInput;

function signal(intensity: Signal['header']['intensity'], payload: Signal['payload']): Signal {
  return { header: { id: randomUUID(), type: 'policy', timestamp: new Date().toISOString(), source: 'spec', intensity }, context: {}, payload };
}
const BLOCK = signal('block', { level: 'blocking', decision: 'deny', reason: 'no', resolvable: true, resolution_path: ['fix it'] });
const CONTROL = signal('control', { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'command', original: 'a', updated: 'b', reason: 'r' }], reversible: true });

function pending(intensity: 'block' | 'control', input: Record<string, unknown>, toolUseId?: string): ClaudeCodePendingAnswer {
  return { signal_id: randomUUID(), intensity, tool_name: 'Bash', input_sha256: inputDigest(input), ...(toolUseId === undefined ? {} : { tool_use_id: toolUseId }) };
}

describe('pendingAnswers', () => {
  it('keeps the block and control signals of a PreToolUse, with the call they were about', () => {
    const decision = aggregateSignals({ hookId: randomUUID(), trigger: 'pre-tool-use', signals: [BLOCK, CONTROL], now: new Date().toISOString() });
    const kept = pendingAnswers(pre('Bash', { command: 'a' }, { tool_use_id: 'toolu_9' }), decision);
    expect(kept.map((entry) => [entry.signal_id, entry.intensity, entry.tool_use_id])).toEqual([
      [BLOCK.header.id, 'block', 'toolu_9'],
      [CONTROL.header.id, 'control', 'toolu_9'],
    ]);
    expect(kept[0]?.input_sha256).toBe(inputDigest({ command: 'a' }));
  });

  it('keeps nothing for other events, and not a block that waits for an operator', () => {
    const approval = signal('block', { level: 'blocking', decision: 'deny', reason: 'wait', resolvable: true, resolution_path: ['wait'], resolution: { kind: 'await_approval', request_id: randomUUID(), deadline: new Date().toISOString() } } as Signal['payload']);
    const decision = aggregateSignals({ hookId: randomUUID(), trigger: 'pre-tool-use', signals: [approval], now: new Date().toISOString() });
    expect(pendingAnswers(pre('Bash', {}), decision)).toEqual([]);
    const blocked = aggregateSignals({ hookId: randomUUID(), trigger: 'post-tool-use', signals: [BLOCK], now: new Date().toISOString() });
    expect(pendingAnswers(post('Bash', {}), blocked)).toEqual([]);
  });
});

describe('inferredAction', () => {
  it('reads accept_modification from the same call\'s PostToolUse', () => {
    expect(inferredAction(pending('control', { command: 'a' }, 'toolu_1'), post('Bash', { command: 'b' }, { tool_use_id: 'toolu_1' }))).toBe('accept_modification');
    expect(inferredAction(pending('control', { command: 'a' }), post('Bash', { command: 'b' }))).toBe('accept_modification');
  });

  it('tells nothing about a control from another call or another event', () => {
    expect(inferredAction(pending('control', { command: 'a' }, 'toolu_1'), post('Bash', {}, { tool_use_id: 'toolu_2' }))).toBeUndefined();
    expect(inferredAction(pending('control', { command: 'a' }), post('Read', {}))).toBeUndefined();
    expect(inferredAction(pending('control', { command: 'a' }), pre('Bash', { command: 'b' }))).toBeUndefined();
  });

  it('reads retry_after_fix from a changed call of the same tool and abort from a Stop', () => {
    expect(inferredAction(pending('block', { command: 'rm -rf ~' }), pre('Bash', { command: 'rm -rf ./build' }))).toBe('retry_after_fix');
    expect(inferredAction(pending('block', { command: 'rm -rf ~' }), { ...common, hook_event_name: 'Stop' } as ClaudeCodeHookInput)).toBe('abort');
  });

  it('tells nothing about a block followed by the identical call, another tool or another event', () => {
    expect(inferredAction(pending('block', { command: 'rm -rf ~' }), pre('Bash', { command: 'rm -rf ~' }))).toBeUndefined();
    expect(inferredAction(pending('block', { command: 'rm -rf ~' }), pre('Read', { file_path: '/x' }))).toBeUndefined();
    expect(inferredAction(pending('block', { command: 'rm -rf ~' }), { ...common, hook_event_name: 'UserPromptSubmit', prompt: 'hi' } as ClaudeCodeHookInput)).toBeUndefined();
  });
});
