import { describe, expect, it } from 'vitest';
import { InboxLedger, messageStampOf } from './inbox-ledger.js';

const stamp = (seq: number, from = 'alice') => ({ from, seq });

describe('InboxLedger', () => {
  it('counts a message accepted and received once as delivered, with its latency', () => {
    const ledger = new InboxLedger();
    ledger.sent(stamp(1), 'bob', 1000);
    ledger.accepted(stamp(1), 1010);
    expect(ledger.outstanding).toBe(1);
    ledger.received('bob', stamp(1), 'msg_1', 1050);
    expect(ledger.outstanding).toBe(0);
    expect(ledger.summarize()).toMatchObject({ sent: 1, accepted: 1, received: 1, lost: 0, duplicatesDelivered: 0, latencyMs: { max: 50 } });
  });

  it('counts an accepted message nobody received as lost, but not one whose send failed', () => {
    const ledger = new InboxLedger();
    ledger.sent(stamp(1), 'bob', 0);
    ledger.accepted(stamp(1), 1);
    ledger.sent(stamp(2), 'bob', 0);
    ledger.failed(stamp(2), 'E_UNAVAILABLE', true);
    ledger.sent(stamp(3), 'bob', 0);
    ledger.failed(stamp(3), 'boom', false);
    const summary = ledger.summarize();
    expect(summary).toMatchObject({ lost: 1, failed: { E_UNAVAILABLE: 1 }, untypedFailures: 1 });
    expect(summary.examples.lost).toEqual(['alice#1 to bob']);
  });

  it('tells a message handed over twice from a message stored twice', () => {
    const ledger = new InboxLedger();
    ledger.sent(stamp(1), 'bob', 0);
    ledger.accepted(stamp(1), 1);
    ledger.received('bob', stamp(1), 'msg_a', 2);
    ledger.received('bob', stamp(1), 'msg_a', 3); // the same stored message again
    ledger.received('bob', stamp(1), 'msg_b', 4); // a second copy in the inbox
    const summary = ledger.summarize();
    expect(summary).toMatchObject({ received: 1, duplicatesDelivered: 2, duplicatesSameId: 1, duplicatesNewId: 1 });
    expect(summary.examples.duplicates).toEqual(['alice#1 to bob: msg_a, msg_a, msg_b']);
  });

  it('counts a message stored twice after its sender reconnected mid-send apart (the known issue)', () => {
    const ledger = new InboxLedger();
    ledger.sent(stamp(1), 'bob', 0);
    ledger.accepted(stamp(1), 1, true);
    ledger.sent(stamp(2), 'bob', 0);
    ledger.accepted(stamp(2), 1, false);
    for (const seq of [1, 2]) {
      ledger.received('bob', stamp(seq), `msg_${seq}a`, 2);
      ledger.received('bob', stamp(seq), `msg_${seq}b`, 3);
    }
    const summary = ledger.summarize();
    expect(summary).toMatchObject({ duplicatesNewId: 2, storedTwiceAfterResend: 1 });
    expect(summary.examples.duplicates[0]).toContain('(sender reconnected while sending)');
  });

  it('flags a message that reached someone else, and one that nobody sent', () => {
    const ledger = new InboxLedger();
    ledger.sent(stamp(1), 'bob', 0);
    ledger.accepted(stamp(1), 1);
    ledger.received('carol', stamp(1), 'msg_a', 2);
    ledger.received('bob', stamp(9, 'mallory'), 'msg_x', 2);
    ledger.received('bob', undefined, 'msg_y', 2);
    const summary = ledger.summarize();
    expect(summary).toMatchObject({ misdelivered: 1, unknown: 2 });
    expect(summary.examples.unknown).toEqual(['bob got msg_x (mallory#9)', 'bob got msg_y']);
  });

  it('notes a message received although its send failed (stored before the error)', () => {
    const ledger = new InboxLedger();
    ledger.sent(stamp(1), 'bob', 0);
    ledger.failed(stamp(1), 'E_TIMEOUT', true);
    ledger.received('bob', stamp(1), 'msg_a', 5);
    expect(ledger.summarize()).toMatchObject({ receivedAfterFailure: 1, lost: 0, duplicatesDelivered: 0 });
  });

  it('refuses a stamp entered twice', () => {
    const ledger = new InboxLedger();
    ledger.sent(stamp(1), 'bob', 0);
    expect(() => ledger.sent(stamp(1), 'carol', 0)).toThrow(/alice#1/);
  });
});

describe('messageStampOf', () => {
  it('reads metadata.chaos and nothing else', () => {
    expect(messageStampOf({ chaos: { from: 'a', seq: 3 } })).toEqual({ from: 'a', seq: 3 });
    expect(messageStampOf({ chaos: { from: 'a' } })).toBeUndefined();
    expect(messageStampOf({})).toBeUndefined();
    expect(messageStampOf(undefined)).toBeUndefined();
  });
});
