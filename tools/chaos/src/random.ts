/**
 * A small seeded random source, so that a chaos run can be replayed: the seed printed at start
 * fixes the fault plan and the workload (which hooks are slow, which ones an oracle blocks).
 * Timing on a real machine is never replayable; the choices are.
 */

/** A 32-bit seed, as printed at the start of a run. */
export type Seed = number;

/** A fresh seed from the system's random source. */
export function randomSeed(): Seed {
  return globalThis.crypto.getRandomValues(new Uint32Array(1))[0] ?? 0;
}

/** Parses a seed given on the command line (decimal or 0x-hex, 0 to 2^32-1). */
export function parseSeed(text: string): Seed {
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new TypeError(`seed must be a whole number from 0 to ${0xffff_ffff}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** An inclusive range of whole numbers (milliseconds, counts). */
export interface Range {
  readonly min: number;
  readonly max: number;
}

/**
 * Mulberry32: tiny, fast and good enough to spread faults and workload; not for secrets.
 * Each consumer derives its own stream with {@link Rng.fork}, so adding a draw in one place
 * does not shift every other choice of the run.
 */
export class Rng {
  #state: number;

  constructor(seed: Seed) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** A whole number in `range`, both ends included. */
  int(range: Range): number {
    return range.min + Math.floor(this.next() * (range.max - range.min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A key drawn with probability proportional to its weight; keys with weight 0 are never drawn. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = (Object.entries(weights) as [K, number][]).filter(([, weight]) => weight > 0);
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    if (entries.length === 0) throw new RangeError('at least one weight must be positive');
    let draw = this.next() * total;
    for (const [key, weight] of entries) {
      draw -= weight;
      if (draw < 0) return key;
    }
    // Floating-point rounding can leave a sliver at the end: it belongs to the last key.
    const last = entries[entries.length - 1];
    if (last === undefined) throw new RangeError('at least one weight must be positive');
    return last[0];
  }

  /** The items in a random order (Fisher–Yates), as a new array. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const swap = out[i] as T;
      out[i] = out[j] as T;
      out[j] = swap;
    }
    return out;
  }

  /** An independent stream derived from this one and `label`. */
  fork(label: string): Rng {
    let hash = 0x811c9dc5;
    for (const char of label) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
    return new Rng((Math.floor(this.next() * 4_294_967_296) ^ hash) >>> 0);
  }
}
