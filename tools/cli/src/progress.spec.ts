import { describe, expect, it } from 'vitest';
import { progressBar, progressReporter } from './progress.js';

function stream(tty: boolean, columns?: number): { stderr: { write: (text: string) => boolean; isTTY: boolean; columns?: number }; written: () => string } {
  let written = '';
  return {
    stderr: { write: (text: string) => ((written += text), true), isTTY: tty, ...(columns === undefined ? {} : { columns }) },
    written: () => written,
  };
}

describe('progressReporter off a terminal', () => {
  it('writes plain lines: one per step of the share done, one per stage, nothing repeated', () => {
    const { stderr, written } = stream(false);
    const progress = progressReporter(stderr, 'log export');
    progress.update('connecting');
    progress.update('connecting');
    for (const [read, share] of [[1000, 0.04], [2000, 0.08], [3000, 0.12], [4000, 0.19], [9000, 0.55], [16000, 1]] as const) {
      progress.update(`(${read} log entries read)`, share);
    }
    progress.done();
    expect(written()).toBe(
      ['log export: connecting', 'log export: 4% (1000 log entries read)', 'log export: 12% (3000 log entries read)', 'log export: 55% (9000 log entries read)', 'log export: 100% (16000 log entries read)', ''].join('\n'),
    );
  });

  it('writes a line at every percent when asked to (the replay\'s lines)', () => {
    const { stderr, written } = stream(false);
    const progress = progressReporter(stderr, 'replay r-1', { lineStepPercent: 1 });
    for (const share of [0.4, 0.404, 0.41]) progress.update('of the window (4000 hooks read)', share);
    expect(written()).toBe('replay r-1: 40% of the window (4000 hooks read)\nreplay r-1: 41% of the window (4000 hooks read)\n');
  });
});

describe('progressReporter on a terminal', () => {
  it('redraws one line in place with a bar, and erases it when done', () => {
    const { stderr, written } = stream(true);
    const progress = progressReporter(stderr, 'log export');
    progress.update('(10 log entries read)', 0.5);
    progress.update('(10 log entries read)', 0.5);
    progress.done();
    expect(written()).toBe(`\r\x1b[Klog export: ${progressBar(0.5)} 50% (10 log entries read)\r\x1b[K`);
  });

  it('never draws wider than the terminal', () => {
    const { stderr, written } = stream(true, 30);
    progressReporter(stderr, 'config publish').update('publishing a-very-long-file-name.yaml');
    expect(written().replace('\r\x1b[K', '').length).toBeLessThan(30);
  });
});

describe('progressBar', () => {
  it('fills its width by the share, clamped to 0..1', () => {
    expect(progressBar(0, 4)).toBe('[----]');
    expect(progressBar(0.5, 4)).toBe('[##--]');
    expect(progressBar(2, 4)).toBe('[####]');
  });
});
