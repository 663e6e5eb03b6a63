/**
 * The approvals track of the chaos ledger. Planner agents submit plans to their lead with
 * stamped request ids; the lead's application (its `onRequest('plan_approval')` handler)
 * approves every plan it is shown. Entered: the submission, each time the lead is shown the
 * request, and how `submitPlan()` settled at the planner. Pure bookkeeping.
 *
 * The promise checked: a submitted request is neither lost nor decided twice.
 * - lost: the planner never learned it was approved — it expired, the gateway never acknowledged
 *   the submission (`E_TIMEOUT`), or nothing settled by the deadline — although the lead is always
 *   online and approves at once. Lost after the lead's answer failed and was never retried is
 *   also counted apart, to name the cause: that was KI-2 (docs/reliability.md), fixed since the SDK
 *   retries answers — it fails the run like any other loss;
 * - duplicate: the lead was shown the request again although its answer had not failed (after a
 *   failed answer the SDK shows it again on purpose: answers are idempotent), or the planner's
 *   call settled twice;
 * - wrong: settled with anything but `approved`;
 * - unknown: the lead was shown a request nobody submitted.
 */
import { distribution, type Distribution } from './stats.js';

interface ApprovalRecord {
  readonly planner: string;
  readonly submittedAt: number;
  readonly deadlineMs: number;
  readonly reviews: number[];
  readonly settles: { readonly at: number; readonly status: string; readonly typed: boolean }[];
}

/** The approvals track's totals; see the module comment. */
export interface ApprovalSummary {
  readonly submitted: number;
  readonly approved: number;
  /** `submitPlan()` rejections with a typed error, by code. */
  readonly failed: Readonly<Record<string, number>>;
  readonly untypedFailures: number;
  readonly lost: number;
  /** Of those, the ones whose only answer failed and was not retried (KI-2, fixed: expected 0). */
  readonly lostAfterFailedAnswer: number;
  /** Showings of one request to the lead beyond the first that no failed answer explains. */
  readonly duplicateReviews: number;
  /** Showings again after the lead's answer failed: the SDK's retry, not a duplicate. */
  readonly reviewsAfterFailedAnswer: number;
  readonly duplicateSettles: number;
  readonly wrong: number;
  readonly unknownReviews: number;
  /** Not settled yet, still within deadline plus grace (0 after a full drain). */
  readonly pending: number;
  /** Submission to approval at the planner, in ms. */
  readonly latencyMs: Distribution;
  readonly examples: Readonly<Record<'lost' | 'duplicates' | 'wrong', readonly string[]>>;
}

const MAX_EXAMPLES = 10;

/** See the module comment. */
export class ApprovalLedger {
  readonly #requests = new Map<string, ApprovalRecord>();
  readonly #failedAnswers = new Map<string, number>();
  #unknownReviews = 0;

  /** Enters a request before `submitPlan()`. */
  submitted(requestId: string, planner: string, at: number, deadlineMs: number): void {
    if (this.#requests.has(requestId)) throw new Error(`request ${requestId} was entered twice`);
    this.#requests.set(requestId, { planner, submittedAt: at, deadlineMs, reviews: [], settles: [] });
  }

  /** The lead's application was shown the request. */
  reviewed(requestId: string, at: number): void {
    const record = this.#requests.get(requestId);
    if (record === undefined) this.#unknownReviews += 1;
    else record.reviews.push(at);
  }

  /** The SDK reported that the lead's answer to the request failed (it will show it again). */
  answerFailed(requestId: string): void {
    this.#failedAnswers.set(requestId, (this.#failedAnswers.get(requestId) ?? 0) + 1);
  }

  /** `submitPlan()` settled: with the request's final status, or with an error code. */
  settled(requestId: string, at: number, status: string, typed = true): void {
    this.#requests.get(requestId)?.settles.push({ at, status, typed });
  }

  /** Submitted requests not settled at their planner yet. */
  get outstanding(): number {
    let count = 0;
    for (const record of this.#requests.values()) if (record.settles.length === 0) count += 1;
    return count;
  }

  /** The totals as of `now`; an unsettled request `graceMs` past its deadline counts as lost. */
  summarize(now: number, graceMs: number): ApprovalSummary {
    const failed: Record<string, number> = {};
    const examples = { lost: [] as string[], duplicates: [] as string[], wrong: [] as string[] };
    const note = (list: string[], text: string): void => {
      if (list.length < MAX_EXAMPLES) list.push(text);
    };
    const latencies: number[] = [];
    let approved = 0;
    let untypedFailures = 0;
    let lost = 0;
    let lostAfterFailedAnswer = 0;
    let duplicateReviews = 0;
    let reviewsAfterFailedAnswer = 0;
    let duplicateSettles = 0;
    let wrong = 0;
    let pending = 0;
    for (const [requestId, record] of this.#requests) {
      const failedAnswers = this.#failedAnswers.get(requestId) ?? 0;
      const label = `${requestId} from ${record.planner}${failedAnswers > 0 ? ` (${failedAnswers} failed answer${failedAnswers > 1 ? 's' : ''})` : ''}`;
      // Every answer the lead gave failed, so nothing could have decided the request.
      const unanswered = record.reviews.length > 0 && failedAnswers >= record.reviews.length;
      const markLost = (text: string): void => {
        lost += 1;
        if (unanswered) lostAfterFailedAnswer += 1;
        note(examples.lost, text);
      };
      const extraReviews = Math.max(0, record.reviews.length - 1);
      const explained = Math.min(extraReviews, failedAnswers);
      reviewsAfterFailedAnswer += explained;
      duplicateReviews += extraReviews - explained;
      duplicateSettles += Math.max(0, record.settles.length - 1);
      if (extraReviews - explained > 0 || record.settles.length > 1) note(examples.duplicates, `${label}: shown ${record.reviews.length}×, settled ${record.settles.length}×`);

      const first = record.settles[0];
      if (first === undefined) {
        if (now <= record.submittedAt + record.deadlineMs + graceMs) pending += 1;
        else markLost(`${label}: never settled, shown ${record.reviews.length}×`);
        continue;
      }
      if (first.status === 'approved') {
        approved += 1;
        latencies.push(first.at - record.submittedAt);
        if (record.reviews.length === 0) {
          // Approved without the lead's application ever seeing it: someone else decided.
          wrong += 1;
          note(examples.wrong, `${label}: approved without reaching the lead`);
        }
      } else if (first.status === 'expired' || first.status === 'E_TIMEOUT') {
        // Expired undecided, or the gateway never acknowledged the submission: either way the lead's approval never made it back.
        markLost(`${label}: ${first.status}, shown ${record.reviews.length}×`);
      } else if (first.status === 'rejected' || first.status === 'cancelled') {
        wrong += 1;
        note(examples.wrong, `${label}: ${first.status}`);
      } else if (first.typed) {
        failed[first.status] = (failed[first.status] ?? 0) + 1;
      } else {
        untypedFailures += 1;
      }
    }
    return {
      submitted: this.#requests.size,
      approved,
      failed,
      untypedFailures,
      lost,
      lostAfterFailedAnswer,
      duplicateReviews,
      reviewsAfterFailedAnswer,
      duplicateSettles,
      wrong,
      unknownReviews: this.#unknownReviews,
      pending,
      latencyMs: distribution(latencies),
      examples,
    };
  }
}
