/**
 * The open-files limit. Holding tens of thousands of connections needs one descriptor per socket
 * in the gateway and in the load generator; both inherit the orchestrator's limit, so the
 * orchestrator raises its own before it starts them (`prlimit` on its own pid, which root may do
 * up to the kernel's `fs.nr_open`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Soft and hard limit of open files. */
export interface FileLimit {
  soft: number;
  hard: number;
}

/** What was done about the limit, for the report. */
export interface FileLimitReport {
  before: FileLimit;
  after: FileLimit;
  /** What happened, in words: "raised with prlimit", "already enough", or why it could not be raised. */
  action: string;
}

/** The "Max open files" row of `/proc/<pid>/limits` (`unlimited` counts as infinite). */
export function parseOpenFilesLimit(limits: string): FileLimit {
  const row = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits);
  if (!row) throw new Error('no "Max open files" row in the limits file');
  const value = (text: string) => (text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text));
  return { soft: value(row[1] as string), hard: value(row[2] as string) };
}

/** This process's open-files limit. */
export function currentFileLimit(): FileLimit {
  return parseOpenFilesLimit(readFileSync('/proc/self/limits', 'utf8'));
}

/**
 * Makes sure this process (and so every child it starts afterwards) may open `wanted` files.
 * Never lowers a limit; never throws — when it cannot raise it, the report says why and the
 * connection phases will show the failures.
 */
export function ensureFileLimit(wanted: number): FileLimitReport {
  const before = currentFileLimit();
  if (before.soft >= wanted) return { before, after: before, action: `already ${before.soft}, enough for ${wanted}` };
  const target = Math.max(wanted, Number.isFinite(before.hard) ? before.hard : wanted);
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${target}:${target}`], { stdio: 'pipe' });
  } catch (error) {
    // prlimit says why on stderr ("Operation not permitted" without CAP_SYS_RESOURCE).
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim().split('\n')[0];
    const why = stderr !== '' ? stderr : error instanceof Error ? error.message.split('\n')[0] : String(error);
    const after = currentFileLimit();
    return { before, after, action: `stays at ${after.soft} (wanted ${wanted}; prlimit refused: ${why})` };
  }
  const after = currentFileLimit();
  return { before, after, action: `raised from ${before.soft}:${before.hard} to ${after.soft}:${after.hard} with prlimit --pid ${process.pid}` };
}
