import { describe, expect, it } from 'vitest';
import { HOOK_CONTEXT_SCHEMAS, parseHookContext } from './hook-context.js';
import { HOOK_TRIGGERS } from './trigger.js';

describe('hook contexts', () => {
  it('has a schema for every trigger', () => {
    expect(Object.keys(HOOK_CONTEXT_SCHEMAS).sort()).toEqual([...HOOK_TRIGGERS].sort());
  });

  it('accepts the typed shapes the SDK, the Claude Code mapping and the demo fleet send', () => {
    const ok = (trigger: Parameters<typeof parseHookContext>[0], context: unknown) => expect(parseHookContext(trigger, context), trigger).toMatchObject({ ok: true });
    ok('pre-tool-use', { tool: { name: 'bash', input: { command: 'ls' } }, loop: { iteration: 3 }, plan_step: 's1' });
    ok('pre-tool-use', { tool: { name: 'bash', input: { command: 'kubectl delete x' } }, approval: { request_id: 'req_tool_1' } });
    ok('post-tool-use', { tool: { name: 'bash', input: {}, ok: true, output: 'done' } });
    ok('post-tool-use', { tool: { name: 'Bash', input: {}, response: { stdout: '' } }, cwd: '/w', claude: { session_id: 's', hook_event_name: 'PostToolUse' } });
    ok('pre-issue-submit', { issue: { id: 'FEAT-1' }, checklist: { items: [{ id: 'c1', title: 't', done: true }] }, files: { changed: ['a.ts'] }, tests: { failed: ['x'] }, coverage: { current: 91, threshold: 80 } });
    ok('post-issue-submit', { review: { expected_response_hours: 2 } });
    ok('stop', { stop_reason: 'MAX_ITER', loop: { iteration: 21 }, plan_step: 's2' });
    ok('user-prompt-submit', { prompt: 'hello' });
    ok('session-start', {});
    ok('pre-compact', { trigger: 'auto', custom_instructions: '' });
    ok('task-complete', { extra: { anything: [1, { deep: true }] } });
  });

  it('refuses the §4.1-era shape with E_INVALID_CONTEXT naming the path', () => {
    const result = parseHookContext('pre-tool-use', { tool: 'bash', input: { command: 'rm -rf /' } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: 'E_INVALID_CONTEXT', retryable: false, details: { trigger: 'pre-tool-use', issue_count: 2 } });
    expect(result.error.message).toMatch(/^invalid pre-tool-use context: context\.tool: /);
    expect(result.error.details?.['issues']).toEqual([
      { path: 'context.tool', message: expect.any(String) },
      { path: 'context.input', message: expect.stringContaining('input') },
    ]);
  });

  it('refuses unknown fields at any depth, a claimed environment and a missing tool', () => {
    const first = (trigger: Parameters<typeof parseHookContext>[0], context: unknown) => {
      const result = parseHookContext(trigger, context);
      return result.ok ? undefined : (result.error.details?.['issues'] as { path: string }[])[0]?.path;
    };
    expect(first('pre-issue-submit', { environment: 'development', files: { changed_count: 3 } })).toBe('context.environment');
    expect(first('pre-issue-submit', { files: { count: 3 } })).toBe('context.files.count');
    expect(first('pre-tool-use', {})).toBe('context.tool');
    expect(first('pre-tool-use', { tool: { name: 'bash', input: 'rm -rf /' } })).toBe('context.tool.input');
    expect(first('pre-tool-use', { tool: { name: 'bash', input: {} }, agent: { team: 'platform' } })).toBe('context.agent');
    expect(first('user-prompt-submit', {})).toBe('context.prompt');
    expect(first('stop', { extra: 'not an object' })).toBe('context.extra');
  });

  it('never throws, whatever it is given', () => {
    for (const value of [null, 1, 'x', [], JSON.parse('{"tool":{"name":"x","input":{"__proto__":{"polluted":true}}}}') as unknown]) {
      expect(() => parseHookContext('pre-tool-use', value)).not.toThrow();
      expect(parseHookContext('pre-tool-use', value).ok).toBe(false);
    }
  });
});
