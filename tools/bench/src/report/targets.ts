/**
 * Targets: a measured figure against a limit, judged PASS or FAIL with the ratio between the two,
 * or SKIP when either side could not be measured in this run.
 */

/** Which side of the limit passes. */
export type Comparison = 'at_most' | 'at_least';

/** A target before judgement. */
export interface TargetSpec {
  /** Stable key for the JSON file, e.g. `decision-p50-vs-parts`. */
  id: string;
  /** What the target says, for people: `decision p50 ≤ ws p50 + bullmq p50 + eval p50 + 0.5 ms`. */
  label: string;
  /** The measured figure; undefined or NaN when its phase did not produce it. */
  actual: number | undefined;
  /** The limit it is held against; undefined or NaN when a baseline it derives from is missing. */
  limit: number | undefined;
  comparison: Comparison;
  /** Unit of `actual` and `limit`, e.g. `ms`, `/s`, `KB`. */
  unit: string;
}

/** A judged target. */
export interface TargetResult extends TargetSpec {
  status: 'PASS' | 'FAIL' | 'SKIP';
  /**
   * `actual / limit`: at most 1 passes an `at_most` target, at least 1 passes an `at_least` one.
   * Null when skipped or when the limit is 0.
   */
  ratio: number | null;
  /** Why it was skipped. */
  reason?: string;
}

const known = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value);

/** Judges one target. */
export function evaluateTarget(spec: TargetSpec): TargetResult {
  if (!known(spec.actual) || !known(spec.limit)) {
    const missing = known(spec.actual) ? 'its limit (a baseline) was not measured' : 'the figure was not measured';
    return { ...spec, status: 'SKIP', ratio: null, reason: missing };
  }
  const passed = spec.comparison === 'at_most' ? spec.actual <= spec.limit : spec.actual >= spec.limit;
  const ratio = spec.limit === 0 ? null : Math.round((spec.actual / spec.limit) * 1000) / 1000;
  return { ...spec, status: passed ? 'PASS' : 'FAIL', ratio };
}

/** `PASS 0.62×`, `FAIL 1.80×`, `SKIP`: the verdict as the table prints it. */
export function formatVerdict(result: TargetResult): string {
  if (result.status === 'SKIP') return 'SKIP';
  return result.ratio === null ? result.status : `${result.status} ${result.ratio.toFixed(2)}×`;
}
