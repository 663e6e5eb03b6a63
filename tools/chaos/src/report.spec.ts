import { describe, expect, it } from 'vitest';
import { ApprovalLedger } from './approval-ledger.js';
import { FAULT_KINDS } from './fault-plan.js';
import { HookLedger } from './hook-ledger.js';
import { InboxLedger } from './inbox-ledger.js';
import { ciChaosOptions } from './options.js';
import { recoveryByKind } from './recovery.js';
import { countFaults, verdict, withVerdict, type ChaosMeasurements } from './report.js';
import type { FaultRecord } from './faults.js';

const records: FaultRecord[] = FAULT_KINDS.map((kind, i) => ({ index: i + 1, kind, target: 'x', injectedAt: 0, healedAt: 1 }));

function clean(): ChaosMeasurements {
  const ledger = new HookLedger();
  ledger.sent({ agent: 'a', seq: 1, hookId: 'h1', trigger: 'pre-tool-use', allowedByOracles: true, allowedByPolicy: false, sentAt: 0, deadlineMs: 100 });
  ledger.settled({ agent: 'a', seq: 1 }, { kind: 'decision', at: 5, allowed: true, decidedBy: 'oracles', fingerprint: 'f' });
  return {
    settings: ciChaosOptions(1),
    startedAt: '',
    finishedAt: '',
    chaosMs: 1000,
    machine: { cpus: 2, node: 'v20', loadBefore: [0, 0, 0], loadAfter: [0, 0, 0] },
    faults: { total: records.length, byKind: countFaults(records), records },
    recovery: { byKind: recoveryByKind([]), perFault: [] },
    hooks: ledger.summarize(1000, 0),
    evaluations: { evaluations: 2, hooksEvaluated: 1, duplicateEvaluations: 1, hooksEvaluatedMoreThanOnce: 1, mostEvaluationsOfOneHook: 2, reEvaluatedWithoutWorkerFault: 0 },
    serviceLogs: { decidedFirst: 1, decidedDuplicate: 1, skippedPastDeadline: 0, failedAttempts: 0, deadlinesReached: 0, errorLines: 0, firstErrors: [] },
    storeCheck: { checked: 1, mismatched: 0, missing: 0, examples: [] },
    agents: { agents: 1, sockets: 1, sessionsResumed: 0, sessionsReplaced: 0, ended: [] },
    unexpectedExits: [],
    tracks: { approvals: { available: false, missing: ['x'] }, inbox: { available: false, missing: ['y'] } },
  };
}

describe('verdict', () => {
  it('passes a clean run, duplicate evaluations included (they are allowed)', () => {
    const report = withVerdict(clean());
    expect(report.failures).toEqual([]);
    expect(report.knownIssues).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('names each broken promise', () => {
    const base = clean();
    const broken: ChaosMeasurements = {
      ...base,
      hooks: {
        ...base.hooks,
        lost: 2,
        hung: 1,
        duplicatesDelivered: 1,
        wrong: 1,
        untypedErrors: 1,
        unknownSettles: 1,
        wire: { decisionFrames: 3, sameSocketDuplicates: 1, answeredOnSeveralSockets: 0, conflicting: 1 },
      },
      storeCheck: { ...base.storeCheck, mismatched: 1 },
      agents: { ...base.agents, ended: [{ agent: 'a', code: 'E_DISCONNECTED', message: 'gone' }] },
      unexpectedExits: [{ service: 'worker-2', code: 1, signal: null, lastLines: [] }],
    };
    const { failures } = verdict(broken);
    for (const expected of ['lost', 'hung', 'duplicate(s) delivered', 'contrary', 'untyped', 'never saw sent', 'on one socket', 'two different decisions', 'stored decision differs', 'ended for good', 'worker-2 (code 1)']) {
      expect(failures.some((failure) => failure.includes(expected)), expected).toBe(true);
    }
    expect(withVerdict(broken).ok).toBe(false);
  });

  it('judges the approvals and inbox tracks when they ran', () => {
    const approvals = new ApprovalLedger();
    approvals.submitted('req_1', 'p1', 0, 10);
    approvals.reviewed('req_1', 1);
    approvals.reviewed('req_1', 2);
    approvals.settled('req_1', 3, 'approved');
    approvals.submitted('req_2', 'p1', 0, 10);
    approvals.settled('req_2', 11, 'expired');
    const inbox = new InboxLedger();
    inbox.sent({ from: 'a', seq: 1 }, 'b', 0);
    inbox.accepted({ from: 'a', seq: 1 }, 1);
    inbox.sent({ from: 'a', seq: 2 }, 'b', 0);
    inbox.accepted({ from: 'a', seq: 2 }, 1);
    inbox.received('b', { from: 'a', seq: 2 }, 'm1', 2);
    inbox.received('b', { from: 'a', seq: 2 }, 'm2', 3);
    const { failures } = verdict({ ...clean(), approvals: approvals.summarize(100, 0), inbox: inbox.summarize() });
    expect(failures).toEqual([
      'approvals: 1 request(s) lost: req_2 from p1: expired, shown 0×',
      'approvals: 1 duplicate(s) delivered to the application: req_1 from p1: shown 2×, settled 1×',
      'inbox: 1 accepted message(s) lost: a#1 to b',
      'inbox: 1 duplicate(s) delivered to the application (0 same id, 1 stored twice): a#2 to b: m1, m2',
    ]);
  });

  it('fails a message stored twice after a mid-send reconnect: KI-1 is fixed, so it is a regression', () => {
    const inbox = new InboxLedger();
    inbox.sent({ from: 'a', seq: 1 }, 'b', 0);
    inbox.accepted({ from: 'a', seq: 1 }, 1, true);
    inbox.received('b', { from: 'a', seq: 1 }, 'm1', 2);
    inbox.received('b', { from: 'a', seq: 1 }, 'm2', 3);
    const report = withVerdict({ ...clean(), inbox: inbox.summarize() });
    expect(report.failures).toEqual([expect.stringContaining('inbox: 1 duplicate(s) delivered to the application (0 same id, 1 stored twice, 1 of them after a mid-send reconnect: KI-1 is back)')]);
    expect(report.knownIssues).toEqual([]);
    expect(report.ok).toBe(false);
  });

  it('fails an approval lost after its only answer failed: KI-2 is fixed, so it is a regression', () => {
    const approvals = new ApprovalLedger();
    approvals.submitted('req_1', 'p1', 0, 10);
    approvals.reviewed('req_1', 1);
    approvals.answerFailed('req_1');
    approvals.settled('req_1', 11, 'expired');
    approvals.submitted('req_2', 'p1', 0, 10);
    approvals.reviewed('req_2', 1);
    approvals.settled('req_2', 2, 'approved');
    const report = withVerdict({ ...clean(), approvals: approvals.summarize(100, 0) });
    expect(report.failures).toEqual([expect.stringContaining("approvals: 1 request(s) lost (1 after the lead's answer failed and was not retried: KI-2 is back)")]);
    expect(report.knownIssues).toEqual([]);
  });

  it('fails a track that ran but got nothing through', () => {
    const { failures } = verdict({ ...clean(), approvals: new ApprovalLedger().summarize(0, 0), inbox: new InboxLedger().summarize() });
    expect(failures).toEqual(['approvals: no plan was approved at all', 'inbox: no message was accepted at all']);
  });

  it('fails a run that decided nothing, and one that left an enabled fault kind out', () => {
    const base = clean();
    expect(verdict({ ...base, hooks: { ...base.hooks, decided: 0 } }).failures).toContain('no hook was decided at all');
    const partial = records.filter((record) => record.kind !== 'restart-redis');
    const { failures } = verdict({ ...base, faults: { total: partial.length, byKind: countFaults(partial), records: partial } });
    expect(failures.join('\n')).toMatch(/never injected: restart-redis/);
  });
});
