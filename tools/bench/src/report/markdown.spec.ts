import { describe, expect, it } from 'vitest';
import { LATEST_RUN_END, LATEST_RUN_START, replaceLatestRun } from './markdown.js';

const section = (text: string) => `${LATEST_RUN_START}\n${text}\n${LATEST_RUN_END}`;

describe('BENCHMARKS.md update', () => {
  it('replaces only the generated section, keeping the analysis around it', () => {
    const before = `# Benchmarks\n\nintro\n\n${section('old table')}\n\n## Analysis\n\nwhat limits each figure\n`;
    const after = replaceLatestRun(before, section('new table'));
    expect(after).toBe(`# Benchmarks\n\nintro\n\n${section('new table')}\n\n## Analysis\n\nwhat limits each figure\n`);
  });

  it('appends the section to a document without markers', () => {
    expect(replaceLatestRun('# Benchmarks\n\nnotes\n', section('t'))).toBe(`# Benchmarks\n\nnotes\n\n${section('t')}\n`);
  });

  it('starts a document when there is none', () => {
    expect(replaceLatestRun(undefined, section('t'))).toBe(`# Benchmarks\n\n${section('t')}\n`);
  });
});
