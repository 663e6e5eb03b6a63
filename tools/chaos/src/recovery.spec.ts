import { describe, expect, it } from 'vitest';
import type { FaultRecord } from './faults.js';
import type { HookRecord, HookSettle } from './hook-ledger.js';
import { recoveryByKind, recoveryOf } from './recovery.js';

const fault = (injectedAt: number, kind: FaultRecord['kind'] = 'kill-worker', index = 1): FaultRecord => ({
  index,
  kind,
  target: 'worker-1',
  injectedAt,
  healedAt: injectedAt + 10,
});

let seq = 0;
function hook(sentAt: number, settle?: { at: number; decidedBy?: string } | { at: number; error: string }): HookRecord {
  seq += 1;
  const settles: HookSettle[] =
    settle === undefined
      ? []
      : 'error' in settle
        ? [{ kind: 'error', at: settle.at, code: settle.error, typed: true }]
        : [{ kind: 'decision', at: settle.at, allowed: true, decidedBy: settle.decidedBy ?? 'oracles', fingerprint: 'f' }];
  return {
    agent: 'a',
    seq,
    hookId: `h${seq}`,
    trigger: 'pre-tool-use',
    allowedByOracles: true,
    allowedByPolicy: false,
    sentAt,
    deadlineMs: 30_000,
    settles,
  };
}

describe('recoveryOf', () => {
  it('waits for the last hook in flight at the fault and for a fresh oracle decision', () => {
    const hooks = [
      hook(0, { at: 50 }), // settled before the fault: not in flight
      hook(90, { at: 4000 }), // in flight, settles late
      hook(95, { at: 300, error: 'E_UNAVAILABLE' }), // in flight, errors early
      hook(200, { at: 250, decidedBy: 'failure_policy' }), // after the fault, but not the oracles
      hook(300, { at: 600 }), // the first oracle decision after the fault
    ];
    expect(recoveryOf(fault(100), hooks)).toEqual({ index: 1, kind: 'kill-worker', inFlight: 2, recoveryMs: 3900, measured: true });
  });

  it('is as long as the path takes to work again when nothing was in flight', () => {
    const hooks = [hook(0, { at: 10 }), hook(500, { at: 2600 }), hook(600, { at: 700 })];
    expect(recoveryOf(fault(100), hooks).recoveryMs).toBe(600);
  });

  it('has no recovery time when a hook in flight never settled or nothing was decided afterwards', () => {
    expect(recoveryOf(fault(100), [hook(50), hook(200, { at: 300 })]).recoveryMs).toBeNull();
    expect(recoveryOf(fault(100), [hook(50, { at: 150 })]).recoveryMs).toBeNull();
  });
});

describe('recoveryByKind', () => {
  it('summarizes per kind and counts the unrecovered apart', () => {
    const byKind = recoveryByKind([
      { index: 1, kind: 'kill-worker', inFlight: 1, recoveryMs: 100, measured: true },
      { index: 2, kind: 'kill-worker', inFlight: 1, recoveryMs: 300, measured: true },
      { index: 3, kind: 'kill-worker', inFlight: 1, recoveryMs: null, measured: true },
      { index: 4, kind: 'restart-redis', inFlight: 0, recoveryMs: 50, measured: true },
      { index: 5, kind: 'drop-sockets', inFlight: 0, recoveryMs: null, measured: false },
    ]);
    expect(byKind['kill-worker']).toMatchObject({ count: 2, min: 100, max: 300, unrecovered: 1, unmeasured: 0 });
    expect(byKind['restart-redis']).toMatchObject({ count: 1, p50: 50, unrecovered: 0 });
    expect(byKind['drop-sockets']).toMatchObject({ count: 0, unrecovered: 0, unmeasured: 1 });
    expect(byKind['kill-gateway']).toMatchObject({ count: 0, unrecovered: 0, unmeasured: 0 });
  });
});

describe('recoveryOf with a scope', () => {
  it('waits only for the hooks the killed worker was evaluating', () => {
    const slow = hook(50, { at: 3000 }); // another worker's slow job: not affected
    const taken = hook(60, { at: 1500 }); // the killed worker's job, re-run elsewhere
    const hooks = [slow, taken, hook(200, { at: 260 })];
    const record = { ...fault(100), affectedHooks: [taken.hookId] };
    expect(recoveryOf(record, hooks)).toMatchObject({ inFlight: 1, recoveryMs: 1400 });
  });

  it('does not measure a fault that hit only agents sending no hooks', () => {
    const record = { ...fault(100, 'drop-sockets'), affectedAgents: ['planner-1'] };
    expect(recoveryOf(record, [hook(50, { at: 150 }), hook(200, { at: 300 })])).toEqual({
      index: 1,
      kind: 'drop-sockets',
      inFlight: 0,
      recoveryMs: null,
      measured: false,
    });
  });

  it("waits for a new oracle decision of an affected agent after a gateway or socket loss", () => {
    const other = { ...hook(150, { at: 200 }), agent: 'b' }; // an agent on another gateway: not proof
    const mine = { ...hook(150, { at: 900 }), agent: 'a' };
    const record = { ...fault(100, 'kill-gateway'), affectedAgents: ['a'] };
    expect(recoveryOf(record, [other, mine])).toMatchObject({ inFlight: 0, recoveryMs: 800 });
  });
});
