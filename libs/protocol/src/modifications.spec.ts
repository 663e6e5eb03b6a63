import { describe, expect, it } from 'vitest';
import { applyModifications } from './modifications.js';

describe('applyModifications', () => {
  it('rewrites top-level and dotted targets without touching the input', () => {
    const input = { command: 'git push --force', options: { depth: 5 } };
    const out = applyModifications(input, [
      { target: 'command', original: 'git push --force', updated: 'git push --force-with-lease', reason: 'safer' },
      { target: 'options.depth', original: 5, updated: 1, reason: 'smaller' },
      { target: 'limits.max', original: null, updated: 10, reason: 'cap' },
    ]);
    expect(out).toEqual({ command: 'git push --force-with-lease', options: { depth: 1 }, limits: { max: 10 } });
    expect(input).toEqual({ command: 'git push --force', options: { depth: 5 } });
  });

  it('accepts a target written from the hook context (tool.input.…) as the same field of the tool input, as the Claude Code mapping does', () => {
    const out = applyModifications({ command: 'ls', options: { depth: 5 } }, [
      { target: 'tool.input.command', original: 'ls', updated: 'ls -1', reason: 'plain' },
      { target: 'tool.input.options.depth', original: 5, updated: 1, reason: 'smaller' },
    ]);
    expect(out).toEqual({ command: 'ls -1', options: { depth: 1 } });
  });

  it('refuses a target with an empty segment or a prototype key, and changes nothing', () => {
    for (const target of ['__proto__.polluted', 'a.constructor.prototype', 'a..b', '']) {
      expect(() => applyModifications({ a: {} }, [{ target, original: null, updated: true, reason: 'hostile' }])).toThrow(/target/);
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
