import { describe, expect, it } from 'vitest';
import { ModificationError, applyModifications } from './modifications.js';
import { modificationPath, pointerTarget } from './modification-target.js';
import { redactionMarker } from './redact.js';

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

  it('names any key and array elements with a JSON Pointer target, and checks the original there', () => {
    const input = { 'cmd.x': 'git push --force', cmd: 'ls', argv: ['bash', '-lc', 'git push --force'], 'a/b': { '~k': 1 } };
    const out = applyModifications(input, [
      { target: pointerTarget(['cmd.x']), original: 'git push --force', updated: 'git push --force-with-lease', reason: 'safer' },
      { target: '/argv/2', original: 'git push --force', updated: 'git push --force-with-lease', reason: 'safer' },
      { target: '/a~1b/~0k', original: 1, updated: 2, reason: 'escaped' },
    ]);
    expect(out).toEqual({ 'cmd.x': 'git push --force-with-lease', cmd: 'ls', argv: ['bash', '-lc', 'git push --force-with-lease'], 'a/b': { '~k': 2 } });
    expect(Array.isArray(out['argv'])).toBe(true);
    expect(modificationPath('/a~1b/~0k')).toEqual(['a/b', '~k']);
    expect(pointerTarget(['a/b', '~k', 0])).toBe('/a~1b/~0k/0');
  });

  it('fails closed, writing nothing, when a pointer target does not hold its original', () => {
    const input = { cmd: { x: 'ls' } };
    expect(() => applyModifications(input, [{ target: '/cmd/x', original: 'git push --force', updated: 'safe', reason: 'r' }])).toThrow(ModificationError);
    // original null: the field may be missing (or null), nothing else.
    expect(applyModifications({}, [{ target: '/limits/max', original: null, updated: 3, reason: 'cap' }])).toEqual({ limits: { max: 3 } });
    expect(() => applyModifications({ max: 1 }, [{ target: '/max', original: null, updated: 3, reason: 'cap' }])).toThrow(/original/);
    expect(input).toEqual({ cmd: { x: 'ls' } });
  });

  it('never turns an array or a string into an object: a path through them must name an existing element', () => {
    const argv = { command: ['bash', '-lc', 'git push --force'] };
    for (const target of ['command.2x', 'command.5', '/command/-', '/command/02', 'cmd.x']) {
      expect(() => applyModifications({ ...argv, cmd: 'ls' }, [{ target, original: null, updated: 'x', reason: 'r' }]), target).toThrow(ModificationError);
    }
    // A dotted index into an array is an element too (no original check for dotted targets).
    expect(applyModifications(argv, [{ target: 'command.2', original: null, updated: 'ls', reason: 'r' }])).toEqual({ command: ['bash', '-lc', 'ls'] });
  });

  it('applies modifications in order, each on the result of the previous one', () => {
    const out = applyModifications({ c: 'a' }, [
      { target: '/c', original: 'a', updated: 'b', reason: '1' },
      { target: '/c', original: 'b', updated: 'c', reason: '2' },
    ]);
    expect(out).toEqual({ c: 'c' });
  });

  it('lets a redaction marker in original stand for the secret the worker never saw', () => {
    const marker = redactionMarker('ab'.repeat(16));
    const input = { access_token: 'tenant-A', options: { auth_token: { role: 'reader' }, depth: 5 } };
    const out = applyModifications(input, [
      { target: '/access_token', original: marker, updated: 'tenant-B', reason: 'operator' },
      { target: '/options', original: { auth_token: '[redacted]', depth: 5 }, updated: { auth_token: 'x', depth: 1 }, reason: 'operator' },
    ]);
    expect(out).toEqual({ access_token: 'tenant-B', options: { auth_token: 'x', depth: 1 } });
    expect(() => applyModifications({}, [{ target: '/access_token', original: marker, updated: 'x', reason: 'r' }])).toThrow(ModificationError);
  });

  it('refuses bad pointer escapes and prototype keys in pointers', () => {
    for (const target of ['/a~2', '/__proto__/x', '/a/constructor']) {
      expect(() => applyModifications({ a: {} }, [{ target, original: null, updated: 1, reason: 'r' }]), target).toThrow(/target/);
    }
  });
});
