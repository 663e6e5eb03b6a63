/**
 * Progress of a long command (log export, config publish, config replay) on stderr. On a terminal
 * it is one line redrawn in place — a bar when the share done is known — and erased when the
 * command ends, so the output that follows is what stays. Anywhere else (a pipe, a CI log, a file)
 * it is plain lines, written only when the shown percentage reaches a new step or the stage
 * changes, so a log of a long export stays short and can be read later.
 */
import type { CliIo } from './cli-errors.js';

/** What shows progress. */
export interface ProgressReporter {
  /**
   * The current state: what is being done (`4000 hooks read`) and, when known, the share done
   * (0 to 1). Nothing is written when it would look the same as the last time.
   */
  update(text: string, fraction?: number): void;
  /** Erases the line on a terminal (before the command prints its result); idempotent. */
  done(): void;
}

/** Options of {@link progressReporter}. */
export interface ProgressOptions {
  /**
   * Off a terminal, a line for every this many percent (the stage lines are always written).
   * @defaultValue `10`
   */
  lineStepPercent?: number;
}

const BAR_WIDTH = 20;

/** `[########------------]`, `fraction` of the width filled. */
export function progressBar(fraction: number, width = BAR_WIDTH): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/**
 * A reporter for `label` (`replay 5b0c…`, `log export`) writing to `stderr`: redrawn on a TTY
 * (`stderr.isTTY`), plain lines `label: 40% text` otherwise.
 */
export function progressReporter(stderr: CliIo['stderr'], label: string, options: ProgressOptions = {}): ProgressReporter {
  const step = options.lineStepPercent ?? 10;
  if (stderr.isTTY === true) {
    let shown = '';
    return {
      update(text, fraction) {
        const line = `${label}: ${fraction === undefined ? '' : `${progressBar(fraction)} ${Math.floor(fraction * 100)}% `}${text}`;
        // Never wider than the terminal: a wrapped line could not be redrawn in place.
        const fitted = stderr.columns !== undefined && line.length >= stderr.columns ? `${line.slice(0, Math.max(0, stderr.columns - 2))}…` : line;
        if (fitted === shown) return;
        shown = fitted;
        stderr.write(`\r\x1b[K${fitted}`);
      },
      done() {
        if (shown !== '') stderr.write('\r\x1b[K');
        shown = '';
      },
    };
  }
  let lastStage: string | undefined;
  let lastStep = -1;
  return {
    update(text, fraction) {
      if (fraction === undefined) {
        if (text === lastStage) return;
        lastStage = text;
        lastStep = -1;
        stderr.write(`${label}: ${text}\n`);
        return;
      }
      const percent = Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
      const reached = Math.floor(percent / step);
      if (reached === lastStep) return;
      lastStep = reached;
      lastStage = undefined;
      stderr.write(`${label}: ${percent}% ${text}\n`);
    },
    done() {},
  };
}
