import { describe, expect, it } from 'vitest';
import { ApprovalLedger } from './approval-ledger.js';

describe('ApprovalLedger', () => {
  it('counts a plan shown to the lead once and approved once', () => {
    const ledger = new ApprovalLedger();
    ledger.submitted('req_1', 'p1', 100, 1000);
    expect(ledger.outstanding).toBe(1);
    ledger.reviewed('req_1', 120);
    ledger.settled('req_1', 160, 'approved');
    expect(ledger.outstanding).toBe(0);
    expect(ledger.summarize(10_000, 0)).toMatchObject({ submitted: 1, approved: 1, lost: 0, duplicateReviews: 0, wrong: 0, latencyMs: { max: 60 } });
  });

  it('counts expired, unacknowledged and never-settled requests as lost', () => {
    const ledger = new ApprovalLedger();
    for (const id of ['req_1', 'req_2', 'req_3', 'req_4']) ledger.submitted(id, 'p1', 0, 1000);
    ledger.settled('req_1', 1000, 'expired');
    ledger.settled('req_2', 30_000, 'E_TIMEOUT');
    ledger.settled('req_3', 50, 'E_UNAVAILABLE');
    expect(ledger.summarize(1500, 1000)).toMatchObject({ lost: 2, pending: 1, failed: { E_UNAVAILABLE: 1 } });
    const later = ledger.summarize(2001, 1000);
    expect(later).toMatchObject({ lost: 3, pending: 0 });
    expect(later.examples.lost).toContain('req_4 from p1: never settled, shown 0×');
  });

  it('counts a request lost after its only answer failed apart (the known issue KI-2)', () => {
    const ledger = new ApprovalLedger();
    ledger.submitted('req_1', 'p1', 0, 1000);
    ledger.reviewed('req_1', 1);
    ledger.answerFailed('req_1');
    ledger.settled('req_1', 1000, 'expired');
    ledger.submitted('req_2', 'p1', 0, 1000);
    ledger.reviewed('req_2', 1);
    ledger.settled('req_2', 1000, 'expired');
    const summary = ledger.summarize(2000, 0);
    expect(summary).toMatchObject({ lost: 2, lostAfterFailedAnswer: 1 });
    expect(summary.examples.lost).toEqual(['req_1 from p1 (1 failed answer): expired, shown 1×', 'req_2 from p1: expired, shown 1×']);
  });

  it('forgives a second showing after a failed answer, not otherwise', () => {
    const ledger = new ApprovalLedger();
    ledger.submitted('req_1', 'p1', 0, 1000);
    ledger.submitted('req_2', 'p1', 0, 1000);
    ledger.reviewed('req_1', 1);
    ledger.answerFailed('req_1');
    ledger.reviewed('req_1', 2);
    ledger.reviewed('req_2', 1);
    ledger.reviewed('req_2', 2);
    ledger.settled('req_1', 3, 'approved');
    ledger.settled('req_2', 3, 'approved');
    ledger.settled('req_2', 4, 'approved');
    const summary = ledger.summarize(10, 0);
    expect(summary).toMatchObject({ reviewsAfterFailedAnswer: 1, duplicateReviews: 1, duplicateSettles: 1 });
    expect(summary.examples.duplicates).toEqual(['req_2 from p1: shown 2×, settled 2×']);
  });

  it('calls an outcome wrong when it is not approval by the lead', () => {
    const ledger = new ApprovalLedger();
    ledger.submitted('req_1', 'p1', 0, 1000);
    ledger.submitted('req_2', 'p1', 0, 1000);
    ledger.reviewed('req_1', 1);
    ledger.settled('req_1', 2, 'rejected');
    ledger.settled('req_2', 2, 'approved'); // never shown to the lead
    ledger.reviewed('req_9', 3);
    expect(ledger.summarize(10, 0)).toMatchObject({ wrong: 2, unknownReviews: 1 });
  });

  it('refuses a request id entered twice', () => {
    const ledger = new ApprovalLedger();
    ledger.submitted('req_1', 'p1', 0, 1);
    expect(() => ledger.submitted('req_1', 'p2', 0, 1)).toThrow(/req_1/);
  });
});
