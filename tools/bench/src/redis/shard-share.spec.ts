import { describe, expect, it } from 'vitest';
import type { CommandDelta } from './commandstats.js';
import { cpuSpreadText, parseRedisCpuSeconds, shardSpread } from './shard-share.js';

const delta = (total: number): CommandDelta => ({ total, scripts: 0, byCommand: [{ command: 'evalsha', calls: total }] });

describe('shardSpread', () => {
  it('gives each master its commands per decision and the busiest share against an even one', () => {
    const spread = shardSpread(new Map([['a:1', delta(300)], ['b:2', delta(400)], ['c:3', delta(300)]]), 100);
    expect(spread.shards).toEqual([
      { node: 'a:1', commands: 300, perDecision: 3 },
      { node: 'b:2', commands: 400, perDecision: 4 },
      { node: 'c:3', commands: 300, perDecision: 3 },
    ]);
    expect(spread.perDecision).toBe(10);
    expect(spread.busiestShare).toBe(0.4);
    expect(spread.skew).toBe(1.2);
  });

  it('is 1 for one Redis, and the master count when one master does everything', () => {
    expect(shardSpread(new Map([['a:1', delta(50)]]), 10).skew).toBe(1);
    expect(shardSpread(new Map([['a:1', delta(90)], ['b:2', delta(0)], ['c:3', delta(0)]]), 10).skew).toBe(3);
  });

  it('refuses nothing to divide by', () => {
    expect(() => shardSpread(new Map(), 10)).toThrow(RangeError);
    expect(() => shardSpread(new Map([['a:1', delta(1)]]), 0)).toThrow(RangeError);
  });
});

describe('shardSpread with CPU', () => {
  const deltas = new Map([['a:1', delta(300)], ['b:2', delta(400)], ['c:3', delta(300)]]);

  it('gives each master its CPU per decision, the busiest share of the CPU, and where the busiest master is full', () => {
    // 1,000 decisions; 20 ms, 50 ms and 30 ms of CPU: 20 / 50 / 30 µs per decision, 100 µs in all.
    const spread = shardSpread(deltas, 1000, new Map([['a:1', 0.02], ['b:2', 0.05], ['c:3', 0.03]]));
    expect(spread.shards.map((shard) => shard.cpuUsPerDecision)).toEqual([20, 50, 30]);
    expect(spread.cpuUsPerDecision).toBe(100);
    expect(spread.busiestCpuShare).toBe(0.5);
    // The master at 50 µs per decision is one core busy at 1 s / 50 µs.
    expect(spread.cpuBoundPerSecond).toBe(20_000);
    expect(cpuSpreadText(spread)).toBe('100 µs Redis CPU/decision (20 / 50 / 30 per master, busiest 50 % of it; the busiest master full at ~20,000 decisions/s)');
  });

  it('names one Redis as Redis, and leaves the CPU out of a spread read without it', () => {
    const one = shardSpread(new Map([['a:1', delta(500)]]), 100, new Map([['a:1', 0.0123]]));
    expect(one.cpuUsPerDecision).toBe(123);
    expect(cpuSpreadText(one)).toBe('123 µs Redis CPU/decision (Redis full at ~8,130 decisions/s)');
    const without = shardSpread(deltas, 100);
    expect(without.cpuUsPerDecision).toBeUndefined();
    expect(without.shards[0]).not.toHaveProperty('cpuUsPerDecision');
    expect(cpuSpreadText(without)).toBe('');
  });

  it('refuses a master without a CPU reading, or whose CPU went backwards', () => {
    expect(() => shardSpread(deltas, 100, new Map([['a:1', 0.01], ['b:2', 0.01]]))).toThrow(/no CPU reading for c:3/);
    expect(() => shardSpread(deltas, 100, new Map([['a:1', 0.01], ['b:2', -1], ['c:3', 0.01]]))).toThrow(/b:2 went backwards/);
    expect(() => shardSpread(deltas, 100, new Map([['a:1', 0.01], ['b:2', Number.NaN], ['c:3', 0.01]]))).toThrow(RangeError);
  });
});

describe('parseRedisCpuSeconds', () => {
  it('adds user and system CPU of the server, not its children or its main thread alone', () => {
    const info = '# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:2.250000\r\nused_cpu_sys_children:9.000000\r\nused_cpu_user_children:9.000000\r\nused_cpu_sys_main_thread:1.000000\r\nused_cpu_user_main_thread:2.000000\r\n';
    expect(parseRedisCpuSeconds(info)).toBe(3.75);
  });

  it('refuses an answer without the lines', () => {
    expect(() => parseRedisCpuSeconds('# Commandstats\r\ncmdstat_get:calls=1\r\n')).toThrow(/used_cpu_sys/);
  });
});
