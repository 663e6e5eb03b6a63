/**
 * The line the memory probe (children/memory-probe.ts) prints, shared with the orchestrator that
 * reads it. Kept apart from the probe, whose import installs a signal handler.
 */

/** Prefix of the probe's output line. */
export const MEMORY_PROBE_TAG = 'ahp-bench-memory';

/** What the probe reports, in bytes (Node's `process.memoryUsage()` after two full collections). */
export interface MemoryReading {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  gcAvailable: boolean;
}

/** The reading in a probe line, or undefined for any other line. */
export function parseMemoryProbeLine(line: string): MemoryReading | undefined {
  if (!line.startsWith(`${MEMORY_PROBE_TAG} `)) return undefined;
  try {
    return JSON.parse(line.slice(MEMORY_PROBE_TAG.length + 1)) as MemoryReading;
  } catch {
    return undefined;
  }
}
