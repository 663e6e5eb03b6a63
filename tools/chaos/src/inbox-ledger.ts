/**
 * The inbox track of the chaos ledger. Every message an agent sends carries a stamp
 * (`metadata.chaos = { from, seq }`) and is entered before `send()`; the sender's outcome (the
 * stored message, or a typed error) and every time a recipient's application receives it from
 * `idle()` are entered against the stamp. Pure bookkeeping.
 *
 * The promise checked: a message the control plane accepted reaches its recipient's application
 * exactly once, and only its recipient.
 * - lost: accepted (`send()` resolved) but never received;
 * - duplicate: received more than once. Told apart by the message id: the same id again means the
 *   SDK handed one stored message over twice; a new id means the message was stored twice. Those
 *   whose sender reconnected while its `send()` was pending are counted apart, to name the cause:
 *   that was KI-1 (docs/reliability.md), fixed since `send` is idempotent by frame id — every
 *   duplicate fails the run;
 * - misdelivered: received by an agent it was not sent to;
 * - unknown: received, but the ledger never saw it sent.
 */
import { distribution, type Distribution } from './stats.js';

/** A message's stamp: `metadata.chaos = { from, seq }`. */
export interface MessageStamp {
  readonly from: string;
  readonly seq: number;
}

interface MessageRecord {
  readonly to: string;
  readonly sentAt: number;
  acceptedAt?: number;
  failure?: { code: string; typed: boolean };
  /** The sender reconnected while its `send()` was pending, so the SDK may have sent it twice. */
  resent?: boolean;
  readonly deliveries: { readonly to: string; readonly messageId: string; readonly at: number }[];
}

/** The inbox track's totals; see the module comment. */
export interface InboxSummary {
  readonly sent: number;
  readonly accepted: number;
  /** `send()` rejections with a typed error, by code. */
  readonly failed: Readonly<Record<string, number>>;
  readonly untypedFailures: number;
  /** Messages received at least once. */
  readonly received: number;
  readonly lost: number;
  /** Receptions beyond the first, of either kind below. */
  readonly duplicatesDelivered: number;
  /** …of a message id already received. */
  readonly duplicatesSameId: number;
  /** …of the same stamp under another message id (stored twice). */
  readonly duplicatesNewId: number;
  /** Of those, the ones whose sender reconnected while sending (KI-1, fixed: expected 0). */
  readonly storedTwiceAfterResend: number;
  /** Received although `send()` failed: stored before the failure reached the sender (at-least-once). */
  readonly receivedAfterFailure: number;
  readonly misdelivered: number;
  readonly unknown: number;
  /** Send to first reception, in ms. */
  readonly latencyMs: Distribution;
  readonly examples: Readonly<Record<'lost' | 'duplicates' | 'misdelivered' | 'unknown', readonly string[]>>;
}

const MAX_EXAMPLES = 10;

function key(stamp: MessageStamp): string {
  return `${stamp.from}#${stamp.seq}`;
}

/** The stamp in a received message's metadata, or undefined when it has none. */
export function messageStampOf(metadata: unknown): MessageStamp | undefined {
  const chaos = (metadata as { chaos?: unknown } | undefined)?.chaos;
  if (typeof chaos !== 'object' || chaos === null) return undefined;
  const { from, seq } = chaos as { from?: unknown; seq?: unknown };
  return typeof from === 'string' && typeof seq === 'number' ? { from, seq } : undefined;
}

/** See the module comment. */
export class InboxLedger {
  readonly #messages = new Map<string, MessageRecord>();
  readonly #unknown: string[] = [];

  /** Enters a message before `send()`. */
  sent(stamp: MessageStamp, to: string, at: number): void {
    const id = key(stamp);
    if (this.#messages.has(id)) throw new Error(`message ${id} was entered twice`);
    this.#messages.set(id, { to, sentAt: at, deliveries: [] });
  }

  /** `send()` resolved: the message is stored. `resent`: the sender reconnected meanwhile. */
  accepted(stamp: MessageStamp, at: number, resent = false): void {
    const record = this.#messages.get(key(stamp));
    if (record === undefined) return;
    record.acceptedAt = at;
    record.resent = resent;
  }

  /** `send()` rejected. `resent`: the sender reconnected meanwhile. */
  failed(stamp: MessageStamp, code: string, typed: boolean, resent = false): void {
    const record = this.#messages.get(key(stamp));
    if (record === undefined) return;
    record.failure = { code, typed };
    record.resent = resent;
  }

  /** `recipient`'s application received a message; `stamp` is undefined when the message carried none. */
  received(recipient: string, stamp: MessageStamp | undefined, messageId: string, at: number): void {
    const record = stamp === undefined ? undefined : this.#messages.get(key(stamp));
    if (record === undefined) {
      this.#unknown.push(`${recipient} got ${messageId}${stamp === undefined ? '' : ` (${key(stamp)})`}`);
      return;
    }
    record.deliveries.push({ to: recipient, messageId, at });
  }

  /** Accepted messages no recipient has received yet. */
  get outstanding(): number {
    let count = 0;
    for (const record of this.#messages.values()) if (record.acceptedAt !== undefined && record.deliveries.length === 0) count += 1;
    return count;
  }

  summarize(): InboxSummary {
    const failed: Record<string, number> = {};
    const examples = { lost: [] as string[], duplicates: [] as string[], misdelivered: [] as string[], unknown: this.#unknown.slice(0, MAX_EXAMPLES) };
    const note = (list: string[], text: string): void => {
      if (list.length < MAX_EXAMPLES) list.push(text);
    };
    const latencies: number[] = [];
    let accepted = 0;
    let untypedFailures = 0;
    let received = 0;
    let lost = 0;
    let duplicatesSameId = 0;
    let duplicatesNewId = 0;
    let storedTwiceAfterResend = 0;
    let receivedAfterFailure = 0;
    let misdelivered = 0;
    for (const [id, record] of this.#messages) {
      if (record.acceptedAt !== undefined) accepted += 1;
      if (record.failure !== undefined) {
        if (record.failure.typed) failed[record.failure.code] = (failed[record.failure.code] ?? 0) + 1;
        else untypedFailures += 1;
      }
      const [first, ...more] = record.deliveries;
      if (first === undefined) {
        if (record.acceptedAt !== undefined) {
          lost += 1;
          note(examples.lost, `${id} to ${record.to}`);
        }
        continue;
      }
      received += 1;
      latencies.push(first.at - record.sentAt);
      if (record.failure !== undefined) receivedAfterFailure += 1;
      const seen = new Set([first.messageId]);
      for (const delivery of more) {
        if (seen.has(delivery.messageId)) {
          duplicatesSameId += 1;
        } else {
          duplicatesNewId += 1;
          if (record.resent === true) storedTwiceAfterResend += 1;
        }
        seen.add(delivery.messageId);
      }
      if (more.length > 0) {
        note(examples.duplicates, `${id} to ${record.to}: ${record.deliveries.map((d) => d.messageId).join(', ')}${record.resent === true ? ' (sender reconnected while sending)' : ''}`);
      }
      const strangers = record.deliveries.filter((delivery) => delivery.to !== record.to);
      if (strangers.length > 0) {
        misdelivered += strangers.length;
        note(examples.misdelivered, `${id} to ${record.to} reached ${strangers.map((d) => d.to).join(', ')}`);
      }
    }
    return {
      sent: this.#messages.size,
      accepted,
      failed,
      untypedFailures,
      received,
      lost,
      duplicatesDelivered: duplicatesSameId + duplicatesNewId,
      duplicatesSameId,
      duplicatesNewId,
      storedTwiceAfterResend,
      receivedAfterFailure,
      misdelivered,
      unknown: this.#unknown.length,
      latencyMs: distribution(latencies),
      examples,
    };
  }
}
