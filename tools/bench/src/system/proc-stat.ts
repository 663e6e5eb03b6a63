/**
 * Per-process CPU time and memory from Linux's `/proc/<pid>/stat`, so every process of a run
 * (Redis, gateways, workers, load generators, this orchestrator) is measured the same way and
 * from outside, without instrumenting any of them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The fields of `/proc/<pid>/stat` the benchmark uses. Times are in clock ticks (`CLK_TCK`). */
export interface ProcStat {
  /** The executable name, as the kernel shows it (at most 15 characters). */
  comm: string;
  /** User-mode CPU time. */
  utime: number;
  /** Kernel-mode CPU time. */
  stime: number;
  /** CPU time of children that were waited for (e.g. hooks a load generator spawned). */
  cutime: number;
  cstime: number;
  /** Resident set size, in pages. */
  rssPages: number;
}

/**
 * Parses the text of `/proc/<pid>/stat`. The second field is the command name in parentheses and
 * may itself contain spaces and parentheses, so the fields are counted from the last `)`.
 */
export function parseProcStat(text: string): ProcStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${text.slice(0, 80)}`);
  // After ") " come fields 3 (state), 4 (ppid), …; utime is field 14, so index 11 here.
  const rest = text.slice(close + 2).trim().split(/\s+/);
  const field = (number: number) => {
    const value = Number(rest[number - 3]);
    if (!Number.isFinite(value)) throw new Error(`/proc/<pid>/stat field ${number} is not a number`);
    return value;
  };
  return {
    comm: text.slice(open + 1, close),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
    rssPages: field(24),
  };
}

/** Reads and parses `/proc/<pid>/stat`; undefined once the process is gone. */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Memory of a process from `/proc/<pid>/status`, in bytes; undefined once it is gone. */
export function readProcessMemory(pid: number): { rssBytes: number; peakRssBytes: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    return { rssBytes: kib('VmRSS'), peakRssBytes: kib('VmHWM') };
  } catch {
    return undefined;
  }
}

/** Scheduler figures of a process's main thread, from `/proc/<pid>/schedstat`, in nanoseconds. */
export interface SchedStat {
  /** Time on a CPU. */
  runNs: number;
  /** Time runnable but waiting for a CPU: what contention costs a process. */
  waitNs: number;
}

/** Parses `/proc/<pid>/schedstat` (`<run ns> <wait ns> <timeslices>`). */
export function parseSchedStat(text: string): SchedStat {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  if (!Number.isFinite(run) || !Number.isFinite(wait)) throw new Error(`not a schedstat line: ${text.slice(0, 80)}`);
  return { runNs: run as number, waitNs: wait as number };
}

/** Reads `/proc/<pid>/schedstat`; undefined once the process is gone (or without schedstats). */
export function readSchedStat(pid: number): SchedStat | undefined {
  try {
    return parseSchedStat(readFileSync(`/proc/${pid}/schedstat`, 'utf8'));
  } catch {
    return undefined;
  }
}

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second (`getconf CLK_TCK`), 100 on practically every Linux. */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
      ticksPerSecond = Number.isFinite(value) && value > 0 ? value : 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}
