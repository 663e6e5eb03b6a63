/**
 * Latency samples and their summary. Every figure the benchmark reports is computed here from
 * the recorded samples themselves (no bucketing), so a p99 is a value some request really took.
 */

/** What a set of latency samples (milliseconds) looks like. */
export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
}

/**
 * Collects samples in a growable typed array: a million samples cost 8 MB and no per-sample
 * object, so recording does not disturb the timing it records.
 */
export class LatencyRecorder {
  #samples: Float64Array;
  #count = 0;

  /** @param initialCapacity - room for this many samples before the first reallocation. @defaultValue 1024 */
  constructor(initialCapacity = 1024) {
    this.#samples = new Float64Array(Math.max(16, initialCapacity));
  }

  get count(): number {
    return this.#count;
  }

  /** Records one latency in milliseconds. Negative or non-finite values are programming errors. */
  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`latency must be a finite, non-negative number, got ${ms}`);
    if (this.#count === this.#samples.length) {
      const grown = new Float64Array(this.#samples.length * 2);
      grown.set(this.#samples);
      this.#samples = grown;
    }
    this.#samples[this.#count++] = ms;
  }

  /** A copy of the samples, in recording order. */
  toArray(): Float64Array {
    return this.#samples.slice(0, this.#count);
  }
}

/**
 * The nearest-rank percentile of ascending `sorted` samples: the smallest sample such that at
 * least `p` percent of all samples are less than or equal to it. No interpolation, so the answer
 * is always an observed value. NaN when there are no samples.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  if (sorted.length === 0) return Number.NaN;
  // Multiply before dividing and allow for rounding: (99.9 / 100) * 10000 is 9990.000000000002 in
  // floating point, which would push the rank one sample too far.
  const rank = Math.ceil((p * sorted.length) / 100 - 1e-9);
  return sorted[Math.min(sorted.length, Math.max(rank, 1)) - 1] as number;
}

/** Summarises samples (any order); every field is NaN, with count 0, when there are none. */
export function summarize(samples: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const count = sorted.length;
  return {
    count,
    min: count === 0 ? Number.NaN : (sorted[0] as number),
    mean: count === 0 ? Number.NaN : sum / count,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: count === 0 ? Number.NaN : (sorted[count - 1] as number),
  };
}

/** Concatenates sample arrays (e.g. from several load generators) into one. */
export function mergeSamples(parts: readonly ArrayLike<number>[]): Float64Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const merged = new Float64Array(total);
  let offset = 0;
  for (const part of parts) {
    merged.set(part, offset);
    offset += part.length;
  }
  return merged;
}
