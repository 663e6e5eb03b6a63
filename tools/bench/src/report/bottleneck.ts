/**
 * Which process limits a saturated run, read off the CPU figures: a Node process or Redis at
 * ~100 % of one core has a saturated event loop (neither uses a second core for its work); all
 * cores busy means the machine itself is the limit; processes that spend much of the window
 * runnable but waiting for a CPU mean the machine is contended (by anything running on it);
 * none of these means the run waits on round trips.
 */
import type { CpuWindow } from '../system/cpu-meter.js';

/** Share of one core from which a single-threaded process counts as saturated. */
export const SATURATED_PERCENT = 90;

/** Share of all cores from which the machine counts as saturated. */
export const MACHINE_SATURATED_SHARE = 0.9;

/** Share of the window spent waiting for a CPU from which a process counts as starved. */
export const STARVED_WAIT_PERCENT = 25;

export function bottleneckOf(cpu: CpuWindow, cores: number): string {
  const [busiest] = cpu.processes;
  if (busiest === undefined) return 'unknown (no process measured)';
  const top = `${busiest.name} ${busiest.cpuPercent}%`;
  if (cpu.totalPercent >= cores * 100 * MACHINE_SATURATED_SHARE) {
    return `machine: all ${cores} cores busy (${cpu.totalPercent}% in all); busiest ${top}`;
  }
  if (busiest.cpuPercent >= SATURATED_PERCENT) return `${busiest.name}: its event loop is saturated (${busiest.cpuPercent}% of a core)`;
  const starved = [...cpu.processes].sort((a, b) => b.waitPercent - a.waitPercent)[0];
  if (starved !== undefined && starved.waitPercent >= STARVED_WAIT_PERCENT) {
    return `contended machine: ${starved.name} waited ${starved.waitPercent}% of the time for a CPU while using ${starved.cpuPercent}% (busiest ${top})`;
  }
  return `no process saturated (busiest ${top}): bound by round trips, not CPU`;
}
