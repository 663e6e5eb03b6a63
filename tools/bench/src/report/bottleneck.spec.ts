import { describe, expect, it } from 'vitest';
import type { CpuWindow } from '../system/cpu-meter.js';
import { bottleneckOf } from './bottleneck.js';

const window = (percents: Record<string, number>, waits: Record<string, number> = {}): CpuWindow => {
  const processes = Object.entries(percents)
    .map(([name, cpuPercent], pid) => ({ name, pid, cpuPercent, waitPercent: waits[name] ?? 0, cpuSeconds: cpuPercent / 100, rssMiB: 50 }))
    .sort((a, b) => b.cpuPercent - a.cpuPercent);
  return { wallSeconds: 1, processes, totalPercent: processes.reduce((sum, p) => sum + p.cpuPercent, 0) };
};

describe('bottleneck', () => {
  it('names a single-threaded process at a full core', () => {
    expect(bottleneckOf(window({ 'gateway-1': 97, redis: 40, 'worker-1': 30 }), 2)).toMatch(/^gateway-1: its event loop is saturated/);
  });

  it('blames the machine when all cores are busy, naming the busiest process', () => {
    expect(bottleneckOf(window({ 'gateway-1': 80, redis: 60, 'worker-1': 45 }), 2)).toBe(
      'machine: all 2 cores busy (185% in all); busiest gateway-1 80%',
    );
  });

  it('calls the machine contended when processes wait for a CPU they did not get', () => {
    expect(bottleneckOf(window({ 'gateway-1': 20, redis: 15 }, { 'gateway-1': 10, redis: 60 }), 2)).toBe(
      'contended machine: redis waited 60% of the time for a CPU while using 15% (busiest gateway-1 20%)',
    );
  });

  it('says so when nothing is saturated', () => {
    expect(bottleneckOf(window({ 'gateway-1': 30, redis: 10 }), 2)).toMatch(/^no process saturated/);
    expect(bottleneckOf(window({}), 2)).toMatch(/unknown/);
  });
});
