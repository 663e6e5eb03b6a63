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
  const cpu = (a: number, b: number, c: number) => new Map([['a:1', a], ['b:2', b], ['c:3', c]]);

  it('gives each master its CPU per decision, the busiest share of the CPU, and where the busiest master is full', () => {
    // 1,000 decisions in 2 s; 20 ms, 50 ms and 30 ms of CPU: 20 / 50 / 30 µs per decision, 100 µs in all.
    const spread = shardSpread(deltas, 1000, { seconds: cpu(0.02, 0.05, 0.03), windowSeconds: 2 });
    expect(spread.shards.map((shard) => shard.cpuUsPerDecision)).toEqual([20, 50, 30]);
    expect(spread.cpuUsPerDecision).toBe(100);
    expect(spread.busiestCpuShare).toBe(0.5);
    expect(spread.loadCpuUsPerDecision).toBeUndefined();
    // The master at 50 µs per decision is one core busy at 1 s / 50 µs.
    expect(spread.cpuBoundPerSecond).toBe(20_000);
    expect(cpuSpreadText(spread)).toBe('100 µs Redis CPU/decision (20 / 50 / 30 per master, busiest 50 % of it); the busiest master full at ~20,000 decisions/s');
  });

  it('takes each master\'s idle rate out of the window: the CPU above idle per decision, and the bound from what idle leaves of a core', () => {
    // 2 s window; idle 1 % / 1 % / 0.5 % of a core, i.e. 20 / 20 / 10 ms of the window.
    const spread = shardSpread(deltas, 1000, { seconds: cpu(0.02, 0.05, 0.03), windowSeconds: 2, idleRate: cpu(0.01, 0.01, 0.005) });
    expect(spread.shards.map((shard) => [shard.cpuUsPerDecision, shard.idleCpuPercent, shard.loadCpuUsPerDecision])).toEqual([
      [20, 1, 0],
      [50, 1, 30],
      [30, 0.5, 20],
    ]);
    expect(spread.loadCpuUsPerDecision).toBe(50);
    // b:2 has 99 % of a core left at 30 µs a decision: 33,000/s; c:3 99.5 % at 20 µs: 49,750/s; a:1 costs nothing above idle.
    expect(spread.cpuBoundPerSecond).toBe(33_000);
    expect(cpuSpreadText(spread)).toBe(
      '100 µs Redis CPU/decision (20 / 50 / 30 per master, busiest 50 % of it); above idle 50 µs (0 / 30 / 20; idle 1 / 1 / 0.5 % of a core); the busiest master full at ~33,000 decisions/s',
    );
  });

  it('names one Redis as Redis, and leaves the CPU out of a spread read without it', () => {
    const one = shardSpread(new Map([['a:1', delta(500)]]), 100, { seconds: new Map([['a:1', 0.0123]]), windowSeconds: 1, idleRate: new Map([['a:1', 0.0023]]) });
    expect(one.cpuUsPerDecision).toBe(123);
    expect(one.loadCpuUsPerDecision).toBe(100);
    expect(cpuSpreadText(one)).toBe('123 µs Redis CPU/decision; above idle 100 µs (idle 0.2 % of a core); Redis full at ~9,977 decisions/s');
    const without = shardSpread(deltas, 100);
    expect(without.cpuUsPerDecision).toBeUndefined();
    expect(without.shards[0]).not.toHaveProperty('cpuUsPerDecision');
    expect(cpuSpreadText(without)).toBe('');
  });

  it('refuses a master without a CPU reading, or whose CPU went backwards', () => {
    expect(() => shardSpread(deltas, 100, { seconds: new Map([['a:1', 0.01], ['b:2', 0.01]]), windowSeconds: 1 })).toThrow(/no CPU reading for c:3/);
    expect(() => shardSpread(deltas, 100, { seconds: cpu(0.01, -1, 0.01), windowSeconds: 1 })).toThrow(/b:2 went backwards/);
    expect(() => shardSpread(deltas, 100, { seconds: cpu(0.01, Number.NaN, 0.01), windowSeconds: 1 })).toThrow(RangeError);
    expect(() => shardSpread(deltas, 100, { seconds: cpu(0.01, 0.01, 0.01), windowSeconds: 1, idleRate: new Map([['a:1', 0]]) })).toThrow(/no idle CPU reading for b:2/);
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
