import { describe, expect, it } from 'vitest';
import { cpuPerOperation, type CpuWindow } from './cpu-meter.js';

const window: CpuWindow = {
  wallSeconds: 10,
  totalPercent: 100,
  processes: [
    { name: 'redis', pid: 1, cpuSeconds: 4, cpuPercent: 40, waitPercent: 0, rssMiB: 10 },
    { name: 'gateway-1', pid: 2, cpuSeconds: 6, cpuPercent: 60, waitPercent: 0, rssMiB: 10 },
    { name: 'orchestrator', pid: 3, cpuSeconds: 0.01, cpuPercent: 0.1, waitPercent: 0, rssMiB: 10 },
  ],
};

describe('CPU per operation', () => {
  it('divides each process’s CPU time by the operations, busiest first, leaving out the negligible', () => {
    expect(cpuPerOperation(window, 4000)).toEqual({
      processes: [
        { name: 'gateway-1', ms: 1.5 },
        { name: 'redis', ms: 1 },
      ],
      totalMs: 2.5,
    });
  });

  it('is empty without operations', () => {
    expect(cpuPerOperation(window, 0)).toEqual({ processes: [], totalMs: 0 });
  });
});
