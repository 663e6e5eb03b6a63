/**
 * CPU used by each process of a run during one measured window: `/proc/<pid>/stat` read at the
 * start and at the end of the window.
 */
import { clockTicksPerSecond, readProcessMemory, readProcStat, readSchedStat } from './proc-stat.js';

/** A process to watch. */
export interface WatchedProcess {
  /** What it is in the report: `redis`, `gateway-1`, `worker-2`, `loadgen`, `orchestrator`… */
  name: string;
  pid: number;
  /**
   * Add the CPU time of children it reaped during the window (e.g. the hook processes the spawn
   * baseline starts). Off for processes whose children are watched on their own, which would
   * otherwise be counted twice when they exit.
   * @defaultValue false
   */
  includeReapedChildren?: boolean;
}

/** One process's share of a window. */
export interface ProcessCpu {
  name: string;
  pid: number;
  /** CPU seconds (user + system) spent in the window. */
  cpuSeconds: number;
  /** `cpuSeconds` over the window's wall time, in percent of one core (200 % = two cores busy). */
  cpuPercent: number;
  /**
   * Share of the window its main thread spent runnable but waiting for a CPU, percent. High
   * values mean the machine was contended (by the run's other processes or anyone else's).
   */
  waitPercent: number;
  /** Resident memory at the end of the window, MiB. */
  rssMiB: number;
}

/** CPU use of every watched process over a window; the processes are listed busiest first. */
export interface CpuWindow {
  wallSeconds: number;
  processes: ProcessCpu[];
  /** Sum over the processes, percent of one core. */
  totalPercent: number;
}

/** Starts a window over `processes`; call the returned function to close it. */
export function startCpuWindow(processes: readonly WatchedProcess[]): () => CpuWindow {
  const ticks = clockTicksPerSecond();
  const startedAt = performance.now();
  const start = new Map(processes.map((process) => [process.pid, cpuTicks(process)]));
  const startWait = new Map(processes.map((process) => [process.pid, readSchedStat(process.pid)?.waitNs]));
  return () => {
    const wallSeconds = (performance.now() - startedAt) / 1000;
    const result: ProcessCpu[] = processes.map((process) => {
      const before = start.get(process.pid);
      const after = cpuTicks(process);
      const cpuSeconds = before === undefined || after === undefined ? 0 : (after - before) / ticks;
      const memory = readProcessMemory(process.pid);
      const waitBefore = startWait.get(process.pid);
      const waitAfter = readSchedStat(process.pid)?.waitNs;
      const waitSeconds = waitBefore === undefined || waitAfter === undefined ? 0 : (waitAfter - waitBefore) / 1e9;
      return {
        name: process.name,
        pid: process.pid,
        cpuSeconds: round(cpuSeconds, 2),
        cpuPercent: wallSeconds > 0 ? round((cpuSeconds / wallSeconds) * 100, 1) : 0,
        waitPercent: wallSeconds > 0 ? round((waitSeconds / wallSeconds) * 100, 1) : 0,
        rssMiB: memory === undefined ? 0 : round(memory.rssBytes / 2 ** 20, 1),
      };
    });
    result.sort((a, b) => b.cpuPercent - a.cpuPercent);
    return {
      wallSeconds: round(wallSeconds, 2),
      processes: result,
      totalPercent: round(result.reduce((sum, process) => sum + process.cpuPercent, 0), 1),
    };
  };
}

function cpuTicks(process: WatchedProcess): number | undefined {
  const stat = readProcStat(process.pid);
  if (stat === undefined) return undefined;
  return stat.utime + stat.stime + (process.includeReapedChildren === true ? stat.cutime + stat.cstime : 0);
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** CPU milliseconds each process spent per operation in a window, and their sum. */
export interface CpuPerOperation {
  /** Per process, busiest first; processes under 0.005 ms per operation are left out. */
  processes: { name: string; ms: number }[];
  totalMs: number;
}

/**
 * CPU time per operation (decision, job): what an operation costs the machine whatever the load
 * and however contended the machine is, so it predicts the rate the cores could reach —
 * `cores × 1000 / totalMs` operations per second at best.
 */
export function cpuPerOperation(window: CpuWindow, operations: number): CpuPerOperation {
  if (!(operations > 0)) return { processes: [], totalMs: 0 };
  const processes = window.processes
    .map((process) => ({ name: process.name, ms: round((process.cpuSeconds * 1000) / operations, 3) }))
    .filter((entry) => entry.ms >= 0.005)
    .sort((a, b) => b.ms - a.ms);
  return { processes, totalMs: round(processes.reduce((sum, entry) => sum + entry.ms, 0), 3) };
}
