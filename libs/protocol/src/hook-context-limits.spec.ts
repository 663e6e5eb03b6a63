import { describe, expect, it } from 'vitest';
import { HookFrameSchema } from './client-frames.js';
import { fitToolText, inspectHookContext, isToolTextPath } from './hook-context-limits.js';
import { parseHookContext } from './hook-context.js';
import { HookJobDataSchema } from './hook-job.js';
import { LIMITS, type JsonObject } from './primitives.js';

const KIB = 1024;
const HOOK_ID = '7b0f1c1e-2a5b-4c7d-9e8f-0a1b2c3d4e5f';
const write = (chars: number): JsonObject => ({ tool: { name: 'Write', input: { file_path: 'a.txt', content: 'x'.repeat(chars) } } });
const output = (chars: number): JsonObject => ({ tool: { name: 'bash', input: { command: 'cat big.log' }, ok: true, output: 'y'.repeat(chars) } });

describe('hook context limits', () => {
  it('tells the tool’s own text from the rest of a context', () => {
    expect(isToolTextPath(['tool', 'input', 'content'])).toBe(true);
    expect(isToolTextPath(['tool', 'input', 'edits', 3, 'new_string'])).toBe(true);
    expect(isToolTextPath(['tool', 'output'])).toBe(true);
    expect(isToolTextPath(['tool', 'response'])).toBe(true);
    expect(isToolTextPath(['tool', 'response', 'file', 'content'])).toBe(true);
    expect(isToolTextPath(['prompt'])).toBe(true);
    expect(isToolTextPath(['tool', 'name'])).toBe(false);
    expect(isToolTextPath(['extra', 'tool'])).toBe(false);
    expect(isToolTextPath(['cwd'])).toBe(false);
  });

  it('a hook frame and a hook job carry a 200 KiB tool input and output (both refused at 64 KiB before)', () => {
    for (const [trigger, context] of [
      ['pre-tool-use', write(200 * KIB)],
      ['post-tool-use', output(200 * KIB)],
    ] as const) {
      expect(HookFrameSchema.safeParse({ type: 'hook', id: HOOK_ID, trigger, context }).success).toBe(true);
      const job = { hook_id: HOOK_ID, trigger, agent: { id: 'a', name: 'A' }, session_id: 's1', context, enqueued_at: 1, deadline_at: 2 };
      expect(HookJobDataSchema.safeParse(job).success).toBe(true);
      expect(parseHookContext(trigger, context).ok).toBe(true);
    }
  });

  it('keeps 64 KiB for every other string, 256 KiB per tool string and 1 MiB of long strings in all', () => {
    expect(inspectHookContext({ ...write(10), extra: { note: 'z'.repeat(LIMITS.maxJsonString + 1) } })).toEqual([
      { path: ['extra', 'note'], message: `string longer than ${LIMITS.maxJsonString} characters` },
    ]);
    expect(inspectHookContext(output(LIMITS.maxLongText + 1))).toEqual([
      { path: ['tool', 'output'], message: `string longer than ${LIMITS.maxLongText} characters` },
    ]);
    const five = Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`part${n}`, 'p'.repeat(LIMITS.maxLongText)]));
    expect(inspectHookContext({ tool: { name: 'MultiWrite', input: five } })).toEqual([
      { path: ['tool', 'input', expect.stringMatching(/^part/) as unknown], message: `strings over ${LIMITS.maxJsonString} characters total more than ${LIMITS.maxLongTextTotal} characters` },
    ]);
    expect(HookFrameSchema.safeParse({ type: 'hook', id: HOOK_ID, trigger: 'post-tool-use', context: output(LIMITS.maxLongText + 1) }).success).toBe(false);
  });
});

describe('fitToolText', () => {
  it('returns a context within the limits as it is', () => {
    const context = output(100 * KIB);
    expect(fitToolText(context)).toEqual({ context, cut: [] });
  });

  it('cuts a tool string to 256 KiB, says so, and leaves the input unchanged', () => {
    const context = output(LIMITS.maxLongText + 100);
    const fitted = fitToolText(context);
    expect(fitted?.cut).toEqual([{ path: 'tool.output', chars: LIMITS.maxLongText + 100, kept: LIMITS.maxLongText }]);
    expect(((fitted?.context['tool'] as JsonObject)['output'] as string).length).toBe(LIMITS.maxLongText);
    expect(((context['tool'] as JsonObject)['output'] as string).length).toBe(LIMITS.maxLongText + 100);
    expect(inspectHookContext(fitted?.context)).toEqual([]);
  });

  it('cuts long strings in document order to what is left of the 1 MiB total', () => {
    const five = Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`part${n}`, 'p'.repeat(LIMITS.maxLongText)]));
    const fitted = fitToolText({ tool: { name: 'MultiWrite', input: five } });
    expect(fitted?.cut).toEqual([{ path: 'tool.input.part5', chars: LIMITS.maxLongText, kept: LIMITS.maxJsonString }]);
    expect(inspectHookContext(fitted?.context)).toEqual([]);
  });

  it('never splits a surrogate pair', () => {
    const text = `${'a'.repeat(LIMITS.maxLongText - 1)}😀tail`;
    const fitted = fitToolText({ tool: { name: 'bash', input: {}, output: text } });
    expect(((fitted?.context['tool'] as JsonObject)['output'] as string).length).toBe(LIMITS.maxLongText - 1);
  });

  it('gives up when more than the tool text is wrong: a long string elsewhere, a forbidden key', () => {
    expect(fitToolText({ ...output(LIMITS.maxLongText + 1), extra: { note: 'z'.repeat(LIMITS.maxJsonString + 1) } })).toBeUndefined();
    const hostile = JSON.parse(`{"tool":{"name":"bash","input":{},"output":"${'o'.repeat(LIMITS.maxLongText + 1)}"},"extra":{"__proto__":{"x":1}}}`) as JsonObject;
    expect(fitToolText(hostile)).toBeUndefined();
  });
});
