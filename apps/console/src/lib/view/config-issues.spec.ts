import { describe, expect, it } from 'vitest';
import { configIssues, offsetOfLine } from './config-issues';

describe('configIssues', () => {
  it('reads the issues of a refused publish, in line order', () => {
    expect(
      configIssues({
        issue_count: 2,
        issues: [
          { line: 6, column: 14, path: 'hooks.pre-tool-use.oracles[0].use', message: 'unknown oracle' },
          { line: 2, column: 1, path: 'version', message: 'expected 1' },
        ],
      }),
    ).toEqual([
      { line: 2, column: 1, path: 'version', message: 'expected 1' },
      { line: 6, column: 14, path: 'hooks.pre-tool-use.oracles[0].use', message: 'unknown oracle' },
    ]);
  });

  it('skips malformed entries and tolerates missing details', () => {
    expect(configIssues(undefined)).toEqual([]);
    expect(configIssues({ issues: 'nope' })).toEqual([]);
    expect(configIssues({ issues: [null, 3, { line: 'x', message: 'whole file' }] })).toEqual([{ line: 0, column: 0, path: '', message: 'whole file' }]);
  });
});

describe('offsetOfLine', () => {
  it('finds where a line starts', () => {
    const text = 'a: 1\nbb: 2\nccc: 3';
    expect(offsetOfLine(text, 1)).toBe(0);
    expect(offsetOfLine(text, 2)).toBe(5);
    expect(offsetOfLine(text, 3)).toBe(11);
    expect(offsetOfLine(text, 9)).toBe(text.length);
  });
});
