import { describe, expect, it } from 'vitest';
import { hunks, lineDiff } from './config-diff';

const LIVE = 'version: 1\nhooks:\n  pre-tool-use:\n    oracles:\n      - name: shell\n        use: rules\n';

describe('lineDiff', () => {
  it('numbers each line on its side and counts additions and removals', () => {
    const edited = LIVE.replace('name: shell', 'name: gate') + '        rules: []\n';
    const diff = lineDiff(LIVE, edited);
    expect([diff.added, diff.removed]).toEqual([2, 1]);
    expect(diff.lines.filter((line) => line.kind !== 'same')).toEqual([
      { kind: 'removed', text: '      - name: shell', oldLine: 5 },
      { kind: 'added', text: '      - name: gate', newLine: 5 },
      { kind: 'added', text: '        rules: []', newLine: 7 },
    ]);
    expect(diff.lines.find((line) => line.text === '        use: rules')).toEqual({ kind: 'same', text: '        use: rules', oldLine: 6, newLine: 6 });
  });

  it('sees no change between identical texts, and a whole text added against an empty one', () => {
    expect(lineDiff(LIVE, LIVE)).toMatchObject({ added: 0, removed: 0 });
    expect(hunks(lineDiff(LIVE, LIVE))).toEqual([]);
    expect(lineDiff('', 'a\nb\n')).toMatchObject({ added: 2, removed: 0 });
  });

  it('keeps a missing final newline from hiding a change of the last line', () => {
    expect(lineDiff('a\nb', 'a\nc')).toMatchObject({ added: 1, removed: 1 });
  });
});

describe('hunks', () => {
  it('keeps changed lines with their context and folds the rest into skipped markers', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 10\n', 'line ten\n');
    const rows = hunks(lineDiff(before, after), 2);
    expect(rows[0]).toEqual({ skipped: 7 });
    expect(rows.slice(1, -1).map((row) => ('text' in row ? row.text : '…'))).toEqual(['line 8', 'line 9', 'line 10', 'line ten', 'line 11', 'line 12']);
    expect(rows.at(-1)).toEqual({ skipped: 8 });
  });
});
