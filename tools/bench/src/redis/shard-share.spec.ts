import { describe, expect, it } from 'vitest';
import type { CommandDelta } from './commandstats.js';
import { shardSpread } from './shard-share.js';

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
