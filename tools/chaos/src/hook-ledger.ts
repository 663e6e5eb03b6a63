/**
 * The hook track of the chaos ledger: every hook a synthetic agent sends is entered with its
 * stamp (agent, sequence number), every way it settles at the agent is entered against that
 * stamp, and every decision frame seen on the wire is entered against the hook id and the socket
 * it came on. Pure bookkeeping, no I/O: the fleet writes, the report reads.
 *
 * How a hook is judged (first settle wins the category; later settles count as duplicates):
 * - decided: a decision arrived within the deadline. It must be the one the run expects: what
 *   the test oracle was told to answer when oracles decided, the trigger's failure policy
 *   (fail-closed blocks, fail-open allows) when the failure policy decided; otherwise "wrong".
 * - errored: a typed error (an `AhpClientError` code) from the control plane within the deadline.
 * - lost: the agent's own deadline fired (`E_TIMEOUT` from the SDK). The gateway answers every
 *   hook by its evaluation deadline, which the run keeps well below the agent's, so this means
 *   the control plane dropped the hook.
 * - hung: nothing settled within the deadline plus a grace period (the SDK did not even time out).
 */
import type { HookTrigger } from '@ahp/protocol';
import { distribution, type Distribution } from './stats.js';

/** What an agent stamps on a hook: `context.extra.chaos = { agent, seq }`. */
export interface HookStamp {
  readonly agent: string;
  readonly seq: number;
}

/** A hook as the agent sent it, with what it must get back. */
export interface SentHook extends HookStamp {
  readonly hookId: string;
  readonly trigger: HookTrigger;
  /** `allowed` of the decision when oracles decide (false when the test oracle was asked to block). */
  readonly allowedByOracles: boolean;
  /** `allowed` of the decision when the failure policy decides (true for fail-open triggers). */
  readonly allowedByPolicy: boolean;
  /** Epoch ms. */
  readonly sentAt: number;
  /** The agent-side deadline of this hook. */
  readonly deadlineMs: number;
}

/** One way a hook settled at the agent. */
export type HookSettle =
  | {
      readonly kind: 'decision';
      readonly at: number;
      readonly allowed: boolean;
      readonly decidedBy: string;
      /** See `decisionFingerprint`: compared with the decision Redis holds at the end. */
      readonly fingerprint: string;
      readonly errorCode?: string;
    }
  /** `typed`: an `AhpClientError` with a code; anything else is a bug on the agent side. */
  | { readonly kind: 'error'; readonly at: number; readonly code: string; readonly typed: boolean };

/** A decision frame as read off one socket. */
export interface WireDecision {
  readonly hookId: string;
  /** Identifies the socket (one per connection attempt of a client). */
  readonly socket: string;
  /** Distinguishes decisions: two frames for one hook must carry the same one. */
  readonly fingerprint: string;
}

/** A hook with everything the ledger learned about it. */
export interface HookRecord extends SentHook {
  readonly settles: readonly HookSettle[];
}

/** The hook track's totals; see the module comment for the categories. */
export interface HookSummary {
  readonly sent: number;
  readonly decided: number;
  readonly decidedByOracles: number;
  readonly decidedByPolicy: number;
  /** Typed errors by code. */
  readonly errors: Readonly<Record<string, number>>;
  readonly lost: number;
  readonly hung: number;
  /** Not settled yet and still within deadline plus grace (0 after a full drain). */
  readonly pending: number;
  /** Decisions contrary to the oracle's answer or the trigger's failure policy. */
  readonly wrong: number;
  readonly untypedErrors: number;
  /** Settles beyond the first for one hook: deliveries the application saw twice. */
  readonly duplicatesDelivered: number;
  /** Settles for a stamp that was never sent. */
  readonly unknownSettles: number;
  readonly wire: {
    readonly decisionFrames: number;
    /** A second decision frame for one hook on the same socket: a protocol violation. */
    readonly sameSocketDuplicates: number;
    /** Hooks answered on more than one socket (re-sent after a reconnect; the SDK keeps the first). */
    readonly answeredOnSeveralSockets: number;
    /** Hooks whose decision frames disagree: first-decision-wins was broken. */
    readonly conflicting: number;
  };
  /** Send to decision, in ms. */
  readonly latencyMs: Distribution;
  /** A few stamps per problem category, for the report. */
  readonly examples: Readonly<Record<'lost' | 'hung' | 'wrong' | 'duplicates' | 'untyped' | 'conflicting' | 'sameSocket', readonly string[]>>;
}

const MAX_EXAMPLES = 10;

/** `alice#42`: how a stamp reads in reports. */
export function stampKey(stamp: HookStamp): string {
  return `${stamp.agent}#${stamp.seq}`;
}

interface MutableRecord extends SentHook {
  settles: HookSettle[];
}

interface WireEntry {
  perSocket: Map<string, number>;
  fingerprints: Set<string>;
}

/** See the module comment. */
export class HookLedger {
  readonly #hooks = new Map<string, MutableRecord>();
  readonly #byHookId = new Map<string, MutableRecord>();
  readonly #wire = new Map<string, WireEntry>();
  #unknownSettles = 0;
  #decisionFrames = 0;

  /** Enters a hook before it is sent. A stamp or hook id used twice is a bug of the caller. */
  sent(hook: SentHook): void {
    const key = stampKey(hook);
    if (this.#hooks.has(key)) throw new Error(`hook ${key} was entered twice`);
    if (this.#byHookId.has(hook.hookId)) throw new Error(`hook id ${hook.hookId} was entered twice`);
    const record: MutableRecord = { ...hook, settles: [] };
    this.#hooks.set(key, record);
    this.#byHookId.set(hook.hookId, record);
  }

  /** Enters one way the hook settled at the agent. */
  settled(stamp: HookStamp, settle: HookSettle): void {
    const record = this.#hooks.get(stampKey(stamp));
    if (record === undefined) this.#unknownSettles += 1;
    else record.settles.push(settle);
  }

  /** Enters a decision frame read off a socket. */
  wireDecision(frame: WireDecision): void {
    this.#decisionFrames += 1;
    let entry = this.#wire.get(frame.hookId);
    if (entry === undefined) {
      entry = { perSocket: new Map(), fingerprints: new Set() };
      this.#wire.set(frame.hookId, entry);
    }
    entry.perSocket.set(frame.socket, (entry.perSocket.get(frame.socket) ?? 0) + 1);
    entry.fingerprints.add(frame.fingerprint);
  }

  /** Hooks sent so far. */
  get size(): number {
    return this.#hooks.size;
  }

  /** Every hook, in the order they were sent. */
  records(): readonly HookRecord[] {
    return [...this.#hooks.values()];
  }

  /** Hooks with no settle yet. */
  unsettled(): readonly HookRecord[] {
    return this.records().filter((record) => record.settles.length === 0);
  }

  /** The totals as of `now`; a hook unsettled `graceMs` past its deadline counts as hung. */
  summarize(now: number, graceMs: number): HookSummary {
    const errors: Record<string, number> = {};
    const examples = { lost: [], hung: [], wrong: [], duplicates: [], untyped: [], conflicting: [], sameSocket: [] } as Record<
      keyof HookSummary['examples'],
      string[]
    >;
    const note = (category: keyof HookSummary['examples'], text: string): void => {
      if (examples[category].length < MAX_EXAMPLES) examples[category].push(text);
    };
    const latencies: number[] = [];
    let decided = 0;
    let decidedByOracles = 0;
    let decidedByPolicy = 0;
    let lost = 0;
    let hung = 0;
    let pending = 0;
    let wrong = 0;
    let untypedErrors = 0;
    let duplicatesDelivered = 0;

    for (const record of this.#hooks.values()) {
      const key = `${stampKey(record)} (${record.hookId})`;
      const [first, ...more] = record.settles;
      if (more.length > 0) {
        duplicatesDelivered += more.length;
        note('duplicates', key);
      }
      const lateAfter = record.sentAt + record.deadlineMs + graceMs;
      if (first === undefined || first.at > lateAfter) {
        if (first === undefined && now <= lateAfter) {
          pending += 1;
        } else {
          hung += 1;
          note('hung', key);
        }
        continue;
      }
      if (first.kind === 'error') {
        if (!first.typed) {
          untypedErrors += 1;
          note('untyped', `${key}: ${first.code}`);
        } else if (first.code === 'E_TIMEOUT') {
          lost += 1;
          note('lost', key);
        } else {
          errors[first.code] = (errors[first.code] ?? 0) + 1;
        }
        continue;
      }
      decided += 1;
      latencies.push(first.at - record.sentAt);
      const byPolicy = first.decidedBy === 'failure_policy';
      if (byPolicy) decidedByPolicy += 1;
      else decidedByOracles += 1;
      const expected = byPolicy ? record.allowedByPolicy : record.allowedByOracles;
      if (first.allowed !== expected) {
        wrong += 1;
        note('wrong', `${key}: ${record.trigger} ${first.allowed ? 'allowed' : 'blocked'} by ${first.decidedBy}`);
      }
    }

    let sameSocketDuplicates = 0;
    let answeredOnSeveralSockets = 0;
    let conflicting = 0;
    for (const [hookId, entry] of this.#wire) {
      const record = this.#byHookId.get(hookId);
      const key = record === undefined ? hookId : `${stampKey(record)} (${hookId})`;
      for (const count of entry.perSocket.values()) {
        if (count > 1) {
          sameSocketDuplicates += count - 1;
          note('sameSocket', key);
        }
      }
      if (entry.perSocket.size > 1) answeredOnSeveralSockets += 1;
      if (entry.fingerprints.size > 1) {
        conflicting += 1;
        note('conflicting', `${key}: ${[...entry.fingerprints].join(' vs ')}`);
      }
    }

    return {
      sent: this.#hooks.size,
      decided,
      decidedByOracles,
      decidedByPolicy,
      errors,
      lost,
      hung,
      pending,
      wrong,
      untypedErrors,
      duplicatesDelivered,
      unknownSettles: this.#unknownSettles,
      wire: { decisionFrames: this.#decisionFrames, sameSocketDuplicates, answeredOnSeveralSockets, conflicting },
      latencyMs: distribution(latencies),
      examples,
    };
  }
}
