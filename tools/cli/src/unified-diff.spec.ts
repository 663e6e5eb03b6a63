import { describe, expect, it } from 'vitest';
import { splitLines, unifiedDiff } from './unified-diff.js';

const labels = { fromLabel: 'a', toLabel: 'b' };
const lines = (n: number, change?: Record<number, string>) =>
  Array.from({ length: n }, (_, i) => change?.[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

/** Applies a unified diff to `from` (a minimal `patch`), to check hunks and their ranges. */
function apply(from: string, diff: string): string {
  const a = splitLines(from);
  const out: string[] = [];
  let next = 0;
  const body = diff.split('\n').slice(2, -1);
  for (let i = 0; i < body.length; i += 1) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$/.exec(body[i]!);
    if (!header) throw new Error(`not a hunk header: ${body[i]}`);
    const count = header[2] === undefined ? 1 : Number(header[2]);
    const start = count === 0 ? Number(header[1]) : Number(header[1]) - 1;
    while (next < start) out.push(a[next++]!);
    for (i += 1; i < body.length && !body[i]!.startsWith('@@'); i += 1) {
      const op = body[i]![0];
      const text = body[i]!.slice(1);
      if (op === ' ') {
        expect(a[next]).toBe(text);
        out.push(a[next++]!);
      } else if (op === '-') {
        expect(a[next]).toBe(text);
        next += 1;
      } else out.push(text);
    }
    i -= 1;
  }
  while (next < a.length) out.push(a[next++]!);
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

describe('unifiedDiff', () => {
  it('is empty for equal texts, also when only the final newline differs', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', labels)).toBe('');
    expect(unifiedDiff('a\nb', 'a\nb\n', labels)).toBe('');
    expect(unifiedDiff('', '', labels)).toBe('');
  });

  it('prints one hunk with three lines of context around a change', () => {
    const diff = unifiedDiff(lines(10), lines(10, { 5: 'five' }), { fromLabel: 'version 3', toLabel: '.ahp/hooks.yaml' });
    expect(diff).toBe(
      ['--- version 3', '+++ .ahp/hooks.yaml', '@@ -2,7 +2,7 @@', ' line 2', ' line 3', ' line 4', '-line 5', '+five', ' line 6', ' line 7', ' line 8', ''].join('\n'),
    );
  });

  it('merges changes closer than twice the context and splits distant ones', () => {
    const near = unifiedDiff(lines(20), lines(20, { 5: 'x', 10: 'y' }), labels);
    expect(near.match(/^@@/gm)).toHaveLength(1);
    const far = unifiedDiff(lines(30), lines(30, { 5: 'x', 20: 'y' }), labels);
    expect(far.match(/^@@/gm)).toHaveLength(2);
    expect(far).toContain('@@ -17,7 +17,7 @@');
  });

  it('diffs from and to an empty text', () => {
    expect(unifiedDiff('', 'a\nb\n', labels)).toBe('--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    expect(unifiedDiff('a\n', '', labels)).toBe('--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n');
  });

  it('produces hunks that turn the old text into the new one', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 50; round += 1) {
      const from = Array.from({ length: Math.floor(random() * 40) }, () => `l${Math.floor(random() * 8)}`).join('\n');
      const to = Array.from({ length: Math.floor(random() * 40) }, () => `l${Math.floor(random() * 8)}`).join('\n');
      const diff = unifiedDiff(from, to, labels);
      const expected = to === '' ? '' : `${to}\n`;
      if (diff === '') expect(splitLines(from)).toEqual(splitLines(to));
      else expect(apply(from === '' ? '' : `${from}\n`, diff)).toBe(expected);
    }
  });
});
