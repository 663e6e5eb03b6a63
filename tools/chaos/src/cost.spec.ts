import { describe, expect, it } from 'vitest';
import { formatCostReport, loadOf, parseCommandStats, parseProfiles } from './cost.js';

const INFO = [
  '# Commandstats',
  'cmdstat_evalsha:calls=300,usec=6000,usec_per_call=20.00,rejected_calls=0,failed_calls=0',
  'cmdstat_bzpopmin:calls=20,usec=100,usec_per_call=5.00,rejected_calls=0,failed_calls=0',
  'cmdstat_info:calls=1,usec=50,usec_per_call=50.00,rejected_calls=0,failed_calls=0',
  'cmdstat_config|resetstat:calls=1,usec=10,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
  '',
].join('\r\n');

describe('parseCommandStats and loadOf', () => {
  it('turns INFO commandstats into rates, leaving out the measurement itself', () => {
    const stats = parseCommandStats(INFO);
    expect(stats.get('evalsha')).toEqual({ calls: 300, usec: 6000 });
    expect(stats.size).toBe(4);
    expect(loadOf(stats, 10_000)).toEqual({
      commandsPerSec: 32,
      redisCpuMsPerSec: 0.61,
      top: [
        { command: 'evalsha', perSec: 30 },
        { command: 'bzpopmin', perSec: 2 },
      ],
    });
  });
});

describe('parseProfiles', () => {
  it('reads lock/stalled pairs', () => {
    expect(parseProfiles('30000/30000, 2000/1000')).toEqual([
      { lockMs: 30_000, stalledIntervalMs: 30_000 },
      { lockMs: 2000, stalledIntervalMs: 1000 },
    ]);
    expect(() => parseProfiles('2000')).toThrow(/lock\/stalled/);
  });
});

describe('formatCostReport', () => {
  it('shows the Redis load a profile adds per active job next to its takeover time', () => {
    const load = (commandsPerSec: number) => ({ commandsPerSec, redisCpuMsPerSec: 0.1, top: [] });
    const text = formatCostReport({
      windowMs: 15_000,
      measurements: [
        {
          profile: { lockMs: 4000, stalledIntervalMs: 2000 },
          idle: load(10),
          active: load(42),
          jobs: 16,
          takeoverMs: { count: 2, min: 4400, p50: 4500, p90: 4500, p99: 4500, max: 4500 },
          notTakenOver: 1,
        },
      ],
    });
    expect(text).toMatch(/4000\/2000\s+10\s+42\s+2\s+0\.1 → 0\.1\s+4400 \/ 4500 \/ 4500 \(1 not taken over\)/);
  });
});
