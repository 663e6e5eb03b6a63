import { describe, expect, it } from 'vitest';
import { HookLedger, stampKey, type HookSettle, type SentHook } from './hook-ledger.js';

const T0 = 1_000_000;

function hook(seq: number, overrides: Partial<SentHook> = {}): SentHook {
  return {
    agent: 'alice',
    seq,
    hookId: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    trigger: 'pre-tool-use',
    allowedByOracles: true,
    allowedByPolicy: false,
    sentAt: T0,
    deadlineMs: 1000,
    ...overrides,
  };
}

const decision = (at: number, allowed = true, decidedBy = 'oracles'): HookSettle => ({
  kind: 'decision',
  at,
  allowed,
  decidedBy,
  fingerprint: `${allowed ? 'allow' : 'block'}/${decidedBy}/x`,
});
const error = (at: number, code: string, typed = true): HookSettle => ({ kind: 'error', at, code, typed });

describe('HookLedger', () => {
  it('counts a hook decided as expected, with its latency', () => {
    const ledger = new HookLedger();
    ledger.sent(hook(1));
    ledger.settled({ agent: 'alice', seq: 1 }, decision(T0 + 40));
    const summary = ledger.summarize(T0 + 50_000, 500);
    expect(summary).toMatchObject({ sent: 1, decided: 1, decidedByOracles: 1, lost: 0, hung: 0, wrong: 0, duplicatesDelivered: 0 });
    expect(summary.latencyMs).toMatchObject({ count: 1, p50: 40, max: 40 });
  });

  it('checks a decision against the oracle or the failure policy, whichever decided', () => {
    const ledger = new HookLedger();
    ledger.sent(hook(1, { allowedByOracles: false }));
    ledger.sent(hook(2, { allowedByOracles: false }));
    ledger.sent(hook(3, { allowedByPolicy: false }));
    ledger.sent(hook(4, { allowedByPolicy: true, trigger: 'post-tool-use' }));
    ledger.settled({ agent: 'alice', seq: 1 }, decision(T0 + 1, false)); // oracle blocked, as asked
    ledger.settled({ agent: 'alice', seq: 2 }, decision(T0 + 1, true)); // oracle should have blocked
    ledger.settled({ agent: 'alice', seq: 3 }, decision(T0 + 1, true, 'failure_policy')); // fail-closed let it through
    ledger.settled({ agent: 'alice', seq: 4 }, decision(T0 + 1, true, 'failure_policy')); // fail-open, fine
    const summary = ledger.summarize(T0 + 10_000, 0);
    expect(summary).toMatchObject({ decided: 4, decidedByOracles: 2, decidedByPolicy: 2, wrong: 2 });
    expect(summary.examples.wrong).toHaveLength(2);
    expect(summary.examples.wrong[0]).toContain('alice#2');
  });

  it("counts the agent's own timeout as lost and other typed errors by code", () => {
    const ledger = new HookLedger();
    for (const seq of [1, 2, 3, 4]) ledger.sent(hook(seq));
    ledger.settled({ agent: 'alice', seq: 1 }, error(T0 + 1000, 'E_TIMEOUT'));
    ledger.settled({ agent: 'alice', seq: 2 }, error(T0 + 10, 'E_UNAVAILABLE'));
    ledger.settled({ agent: 'alice', seq: 3 }, error(T0 + 10, 'E_UNAVAILABLE'));
    ledger.settled({ agent: 'alice', seq: 4 }, error(T0 + 10, 'TypeError: boom', false));
    const summary = ledger.summarize(T0 + 10_000, 0);
    expect(summary).toMatchObject({ lost: 1, errors: { E_UNAVAILABLE: 2 }, untypedErrors: 1, decided: 0 });
    expect(summary.examples.lost).toEqual([`alice#1 (${hook(1).hookId})`]);
  });

  it('calls a hook pending until deadline plus grace, hung after, and hung when it settled too late', () => {
    const ledger = new HookLedger();
    ledger.sent(hook(1));
    ledger.sent(hook(2));
    ledger.settled({ agent: 'alice', seq: 2 }, decision(T0 + 1000 + 501));
    expect(ledger.summarize(T0 + 1500, 500)).toMatchObject({ pending: 1, hung: 1, decided: 0 });
    expect(ledger.summarize(T0 + 1501, 500)).toMatchObject({ pending: 0, hung: 2 });
    expect(ledger.unsettled().map((record) => record.seq)).toEqual([1]);
  });

  it('counts every settle beyond the first as a duplicate delivered, and settles of unknown stamps', () => {
    const ledger = new HookLedger();
    ledger.sent(hook(1));
    ledger.settled({ agent: 'alice', seq: 1 }, decision(T0 + 1));
    ledger.settled({ agent: 'alice', seq: 1 }, decision(T0 + 2));
    ledger.settled({ agent: 'alice', seq: 1 }, error(T0 + 3, 'E_TIMEOUT'));
    ledger.settled({ agent: 'bob', seq: 1 }, decision(T0 + 1));
    const summary = ledger.summarize(T0 + 10_000, 0);
    expect(summary).toMatchObject({ decided: 1, lost: 0, duplicatesDelivered: 2, unknownSettles: 1 });
  });

  it('tells re-deliveries on new sockets from duplicates on one socket and from conflicting decisions', () => {
    const ledger = new HookLedger();
    const [a, b, c] = [hook(1), hook(2), hook(3)];
    for (const h of [a, b, c]) ledger.sent(h);
    ledger.wireDecision({ hookId: a.hookId, socket: 'alice/1', fingerprint: 'allow/oracles/t1' });
    ledger.wireDecision({ hookId: a.hookId, socket: 'alice/2', fingerprint: 'allow/oracles/t1' });
    ledger.wireDecision({ hookId: b.hookId, socket: 'alice/2', fingerprint: 'allow/oracles/t2' });
    ledger.wireDecision({ hookId: b.hookId, socket: 'alice/2', fingerprint: 'allow/oracles/t2' });
    ledger.wireDecision({ hookId: c.hookId, socket: 'alice/2', fingerprint: 'allow/oracles/t3' });
    ledger.wireDecision({ hookId: c.hookId, socket: 'alice/3', fingerprint: 'block/failure_policy/t4' });
    const { wire, examples } = ledger.summarize(T0, 0);
    expect(wire).toEqual({ decisionFrames: 6, sameSocketDuplicates: 1, answeredOnSeveralSockets: 2, conflicting: 1 });
    expect(examples.sameSocket).toEqual([`alice#2 (${b.hookId})`]);
    expect(examples.conflicting[0]).toContain('allow/oracles/t3 vs block/failure_policy/t4');
  });

  it('refuses a stamp or a hook id entered twice', () => {
    const ledger = new HookLedger();
    ledger.sent(hook(1));
    expect(() => ledger.sent(hook(1, { hookId: 'other' }))).toThrow(/alice#1/);
    expect(() => ledger.sent(hook(2, { hookId: hook(1).hookId }))).toThrow(/hook id/);
  });

  it('keys stamps as agent#seq', () => {
    expect(stampKey({ agent: 'agent-01', seq: 7 })).toBe('agent-01#7');
  });
});
