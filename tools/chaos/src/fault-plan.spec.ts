import { describe, expect, it } from 'vitest';
import { FAULT_KINDS, FaultScheduler, checkFaultPlanOptions, describePlannedFault, pickVictim, type FaultPlanOptions } from './fault-plan.js';

const options: FaultPlanOptions = {
  weights: { 'kill-worker': 1, 'kill-gateway': 1, 'stop-worker': 1, 'restart-redis': 1, 'drop-sockets': 1 },
  gapMs: { min: 1000, max: 2000 },
  pauseMs: { min: 5000, max: 8000 },
  sockets: { min: 1, max: 3 },
  coverAll: true,
};

const plan = (seed: number, count: number, opts = options) => {
  const scheduler = new FaultScheduler(seed, opts);
  return Array.from({ length: count }, () => scheduler.next());
};

describe('FaultScheduler', () => {
  it('replays the same plan from the same seed', () => {
    expect(plan(11, 30)).toEqual(plan(11, 30));
    expect(plan(11, 30)).not.toEqual(plan(12, 30));
  });

  it('opens with every enabled kind exactly once when coverAll is set', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const opening = plan(seed, FAULT_KINDS.length).map((fault) => fault.kind);
      expect([...opening].sort()).toEqual([...FAULT_KINDS].sort());
    }
    const twoKinds = { ...options, weights: { ...options.weights, 'kill-gateway': 0, 'stop-worker': 0, 'restart-redis': 0 } };
    expect(new FaultScheduler(1, twoKinds).openingLength).toBe(2);
  });

  it('never plans a kind of weight 0', () => {
    const weights = { ...options.weights, 'restart-redis': 0, 'kill-gateway': 0 };
    const kinds = new Set(plan(3, 200, { ...options, weights }).map((fault) => fault.kind));
    expect(kinds.has('restart-redis')).toBe(false);
    expect(kinds.has('kill-gateway')).toBe(false);
    expect(kinds.size).toBe(3);
  });

  it('numbers faults, keeps gaps in range, and gives pauses and socket counts only to their kinds', () => {
    const faults = plan(8, 100);
    faults.forEach((fault, i) => {
      expect(fault.index).toBe(i + 1);
      expect(fault.gapMs).toBeGreaterThanOrEqual(1000);
      expect(fault.gapMs).toBeLessThanOrEqual(2000);
      expect(fault.pick).toBeGreaterThanOrEqual(0);
      expect(fault.pick).toBeLessThan(1);
      if (fault.kind === 'stop-worker') expect(fault.pauseMs).toBeGreaterThanOrEqual(5000);
      else expect(fault.pauseMs).toBeUndefined();
      if (fault.kind === 'drop-sockets') expect(fault.sockets).toBeGreaterThanOrEqual(1);
      else expect(fault.sockets).toBeUndefined();
    });
  });

  it('does not shift later parameters when the kinds before them change', () => {
    // Same seed, other weights: the kinds differ, the gaps (drawn for every kind) do not.
    const other = { ...options, coverAll: false, weights: { ...options.weights, 'drop-sockets': 50 } };
    expect(plan(4, 20, { ...options, coverAll: false }).map((f) => f.gapMs)).toEqual(plan(4, 20, other).map((f) => f.gapMs));
  });

  it('refuses options that cannot make a plan', () => {
    expect(() => checkFaultPlanOptions({ ...options, weights: { ...options.weights, 'kill-worker': -1 } })).toThrow(/kill-worker/);
    const none = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as FaultPlanOptions['weights'];
    expect(() => checkFaultPlanOptions({ ...options, weights: none })).toThrow(/positive weight/);
    expect(() => checkFaultPlanOptions({ ...options, gapMs: { min: 5, max: 1 } })).toThrow(/gapMs/);
    expect(() => checkFaultPlanOptions({ ...options, sockets: { min: 0, max: 1 } })).toThrow(/sockets/);
  });
});

describe('pickVictim', () => {
  it('maps the fraction onto whatever candidates are alive', () => {
    expect(pickVictim(['a', 'b', 'c'], 0)).toBe('a');
    expect(pickVictim(['a', 'b', 'c'], 0.5)).toBe('b');
    expect(pickVictim(['a', 'b', 'c'], 0.999)).toBe('c');
    expect(pickVictim([], 0.5)).toBeUndefined();
  });
});

describe('describePlannedFault', () => {
  it('names the kind and its parameter', () => {
    expect(describePlannedFault({ index: 3, kind: 'stop-worker', gapMs: 1, pick: 0, pauseMs: 3200 })).toBe('#3 stop-worker (pause 3200 ms)');
    expect(describePlannedFault({ index: 4, kind: 'drop-sockets', gapMs: 1, pick: 0, sockets: 2 })).toBe('#4 drop-sockets (2 sockets)');
    expect(describePlannedFault({ index: 5, kind: 'restart-redis', gapMs: 1, pick: 0 })).toBe('#5 restart-redis');
  });
});
