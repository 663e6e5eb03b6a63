/**
 * The search for the highest rate the system sustains: step the offered rate up until a step
 * breaks the service level, then bisect once or twice between the last good and the first bad
 * rate. Pure, so the orchestrator only runs the steps it is told to.
 */

/** One measured step. */
export interface RateStep {
  /** Offered rate, requests per second. */
  rate: number;
  /** Whether the step met the service level (latency bound and no errors). */
  passed: boolean;
}

/** Options of {@link nextRate}. */
export interface RateSearchOptions {
  /** First rate to try. */
  startRate: number;
  /**
   * Each step up multiplies the rate by this.
   * @defaultValue 1.25
   */
  growth?: number;
  /**
   * Bisections between the last passing and the first failing rate, once a step failed.
   * @defaultValue 2
   */
  refinements?: number;
  /**
   * Steps at most (the search stops there even if nothing failed).
   * @defaultValue 12
   */
  maxSteps?: number;
  /**
   * Rates are rounded to a multiple of this, so reports read "2,450/s" rather than "2,447.3/s".
   * @defaultValue 10
   */
  granularity?: number;
}

/**
 * The next rate to try after `history` (in the order measured), or undefined when the search is
 * over. Growing phase: every step passed so far → `last × growth`. After the first failure: the
 * midpoint between the highest passing and the lowest failing rate, `refinements` times, unless
 * they are closer than two granularity units. A first step that fails is halved until something
 * passes (within `maxSteps`).
 */
export function nextRate(history: readonly RateStep[], options: RateSearchOptions): number | undefined {
  const growth = options.growth ?? 1.25;
  const refinements = options.refinements ?? 2;
  const maxSteps = options.maxSteps ?? 12;
  const unit = options.granularity ?? 10;
  if (!(options.startRate > 0) || !(growth > 1)) throw new RangeError('startRate must be > 0 and growth > 1');
  const round = (rate: number) => Math.max(unit, Math.round(rate / unit) * unit);

  if (history.length === 0) return round(options.startRate);
  if (history.length >= maxSteps) return undefined;

  const last = history[history.length - 1] as RateStep;
  if (history.every((step) => step.passed)) return round(last.rate * growth);

  const best = highestPassing(history);
  if (best === undefined) {
    const lowest = Math.min(...history.map((step) => step.rate));
    return lowest <= unit ? undefined : round(lowest / 2);
  }
  const lowestFail = Math.min(...history.filter((step) => !step.passed && step.rate > best).map((step) => step.rate));
  if (!Number.isFinite(lowestFail)) return undefined;
  const refinementsDone = history.length - 1 - bracketedAt(history);
  if (refinementsDone >= refinements || lowestFail - best < 2 * unit) return undefined;
  return round((best + lowestFail) / 2);
}

/** Index of the first step after which some passing rate lies below some failing rate. */
function bracketedAt(history: readonly RateStep[]): number {
  let lowestPass = Number.POSITIVE_INFINITY;
  let highestFail = Number.NEGATIVE_INFINITY;
  for (const [index, step] of history.entries()) {
    if (step.passed) lowestPass = Math.min(lowestPass, step.rate);
    else highestFail = Math.max(highestFail, step.rate);
    if (lowestPass < highestFail) return index;
  }
  return history.length - 1;
}

/** The highest rate that passed, or undefined when none did. */
export function highestPassing(history: readonly RateStep[]): number | undefined {
  const passing = history.filter((step) => step.passed).map((step) => step.rate);
  return passing.length === 0 ? undefined : Math.max(...passing);
}
