/**
 * BENCHMARKS.md keeps the latest full run between two markers; everything outside them (the
 * analysis, written by people) is left as it is when a new run replaces the table.
 */
import type { BenchResults } from '../results.js';

export const LATEST_RUN_START = '<!-- bench:latest-run:start (written by `npm run bench -- --write-md`; edits inside are overwritten) -->';
export const LATEST_RUN_END = '<!-- bench:latest-run:end -->';

/** The generated section: command, machine, the table, and where the raw figures are (`rawFile`). */
export function renderLatestRun(results: BenchResults, table: string, rawFile: string): string {
  const { machine } = results;
  return [
    LATEST_RUN_START,
    `## Latest run (${results.mode} mode, ${results.startedAt.slice(0, 10)})`,
    '',
    'Command, from the repository root:',
    '',
    '```sh',
    results.command,
    '```',
    '',
    `Machine: ${machine.cpuModel}, \`nproc\` = ${machine.nproc}, ${machine.kernel}. Load average ${machine.loadAverageAtStart.join(' / ')} (1/5/15 min) when the run started${machine.loadAverageAtEnd ? `, ${machine.loadAverageAtEnd.join(' / ')} when it ended` : ''}. Raw figures: \`${rawFile}\`.`,
    '',
    ...(machine.freeH === '' ? [] : ['```text', '$ free -h', machine.freeH, '```', '']),
    '```text',
    table,
    '```',
    LATEST_RUN_END,
  ].join('\n');
}

/**
 * The document with `section` in place of the previous generated section. A document without the
 * markers gets the section appended; no document yet gets a title and the section.
 */
export function replaceLatestRun(document: string | undefined, section: string): string {
  if (document === undefined || document.trim() === '') return `# Benchmarks\n\n${section}\n`;
  const start = document.indexOf(LATEST_RUN_START);
  const end = document.indexOf(LATEST_RUN_END);
  if (start < 0 || end < start) return `${document.trimEnd()}\n\n${section}\n`;
  return `${document.slice(0, start)}${section}${document.slice(end + LATEST_RUN_END.length)}`;
}
