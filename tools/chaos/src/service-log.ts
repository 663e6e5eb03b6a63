/**
 * Counts what the gateways and workers say about hooks in their JSON log lines: how many
 * evaluations were stored first (and so delivered), how many found a decision already stored (a
 * duplicate evaluation, not delivered), how many deadlines the failure policy answered.
 */

/** The log messages counted, by counter. Matched on the start of `msg`. */
const COUNTED = {
  /** Worker: the evaluation's decision was the first and was routed to the agent's gateway. */
  decidedFirst: 'hook decided',
  /** Worker: a decision was already stored; this evaluation was a duplicate and is not delivered. */
  decidedDuplicate: 'hook already decided',
  /** Worker: the job was picked up after its deadline and skipped. */
  skippedPastDeadline: 'hook job skipped',
  /** Worker: a job attempt failed (BullMQ retries it). */
  failedAttempts: 'hook job attempt failed',
  /** Gateway: the deadline passed and the failure policy was offered as the decision. */
  deadlinesReached: 'hook deadline reached',
} as const;

/** Counters of {@link ServiceLogCounter}. */
export type ServiceLogCounts = Record<keyof typeof COUNTED | 'errorLines', number>;

/** Feed it every output line of the stack's processes. */
export class ServiceLogCounter {
  readonly #counts: ServiceLogCounts = {
    decidedFirst: 0,
    decidedDuplicate: 0,
    skippedPastDeadline: 0,
    failedAttempts: 0,
    deadlinesReached: 0,
    errorLines: 0,
  };
  readonly #errors: string[] = [];

  /** Counts one output line; anything that is not a JSON log line is ignored. */
  line(service: string, line: string): void {
    if (!line.startsWith('{')) return;
    let entry: { msg?: unknown; level?: unknown };
    try {
      entry = JSON.parse(line) as { msg?: unknown; level?: unknown };
    } catch {
      return;
    }
    if (typeof entry.msg !== 'string') return;
    for (const [counter, prefix] of Object.entries(COUNTED) as [keyof typeof COUNTED, string][]) {
      if (entry.msg === prefix || entry.msg.startsWith(`${prefix}:`) || entry.msg.startsWith(`${prefix};`)) this.#counts[counter] += 1;
    }
    if (entry.level === 'error') {
      this.#counts.errorLines += 1;
      if (this.#errors.length < 20) this.#errors.push(`${service}: ${entry.msg}`);
    }
  }

  counts(): Readonly<ServiceLogCounts> {
    return { ...this.#counts };
  }

  /** The first error-level messages, for the report. */
  firstErrors(): readonly string[] {
    return [...this.#errors];
  }
}
