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
});
