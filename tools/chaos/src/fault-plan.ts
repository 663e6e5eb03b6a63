/**
 * Which fault comes next, and with which parameters: a pure, seeded sequence, so a run can be
 * replayed from the seed it printed. Applying a fault (signals, restarts) is faults.ts's job.
 */
import { Rng, type Range, type Seed } from './random.js';

/** The faults the chaos loop injects. */
export const FAULT_KINDS = ['kill-worker', 'kill-gateway', 'stop-worker', 'restart-redis', 'drop-sockets'] as const;

/**
 * - `kill-worker`: SIGKILL an oracle worker (usually mid-job), then start a replacement.
 * - `kill-gateway`: SIGKILL a gateway that has agents connected, then start a replacement.
 * - `stop-worker`: SIGSTOP a worker for longer than its job lock, then SIGCONT it.
 * - `restart-redis`: restart Redis (graceful, AOF kept) under everyone's feet.
 * - `drop-sockets`: terminate the sockets of some agents without a close frame.
 */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Relative frequency of each fault kind; 0 disables a kind. */
export type FaultWeights = Readonly<Record<FaultKind, number>>;

/** Options of {@link FaultScheduler}. */
export interface FaultPlanOptions {
  readonly weights: FaultWeights;
  /** Quiet time before each fault, counted from the moment the previous one healed. */
  readonly gapMs: Range;
  /** How long `stop-worker` keeps the worker stopped; keep `min` above the job lock. */
  readonly pauseMs: Range;
  /** How many agent sockets one `drop-sockets` terminates. */
  readonly sockets: Range;
  /**
   * Start with every enabled kind once, in a random order, so that a short run (CI) still
   * exercises all of them; weighted draws follow.
   */
  readonly coverAll: boolean;
}

/** One fault of the plan. */
export interface PlannedFault {
  /** 1-based position in the plan. */
  readonly index: number;
  readonly kind: FaultKind;
  /** Wait this long after the previous fault healed. */
  readonly gapMs: number;
  /**
   * Chooses the victim among the candidates alive when the fault is applied (see
   * {@link pickVictim}); a fraction rather than an index because the set changes during a run.
   */
  readonly pick: number;
  /** `stop-worker` only: how long the worker stays stopped. */
  readonly pauseMs?: number;
  /** `drop-sockets` only: how many agent sockets to terminate. */
  readonly sockets?: number;
}

function checkRange(name: string, range: Range): void {
  if (!Number.isInteger(range.min) || !Number.isInteger(range.max) || range.min < 0 || range.max < range.min) {
    throw new RangeError(`${name} must be whole numbers with 0 <= min <= max, got ${range.min}..${range.max}`);
  }
}

/** Throws a RangeError naming the first option that cannot produce a plan. */
export function checkFaultPlanOptions(options: FaultPlanOptions): void {
  for (const kind of FAULT_KINDS) {
    const weight = options.weights[kind];
    if (!Number.isFinite(weight) || weight < 0) throw new RangeError(`weight of ${kind} must be a number >= 0, got ${weight}`);
  }
  if (FAULT_KINDS.every((kind) => options.weights[kind] === 0)) throw new RangeError('at least one fault kind needs a positive weight');
  checkRange('gapMs', options.gapMs);
  checkRange('pauseMs', options.pauseMs);
  checkRange('sockets', options.sockets);
  if (options.sockets.min < 1) throw new RangeError('sockets.min must be at least 1');
}

/** The seeded fault sequence. Same seed and options, same faults. */
export class FaultScheduler {
  readonly #rng: Rng;
  readonly #options: FaultPlanOptions;
  readonly #opening: FaultKind[];
  #index = 0;

  constructor(seed: Seed, options: FaultPlanOptions) {
    checkFaultPlanOptions(options);
    this.#options = options;
    this.#rng = new Rng(seed).fork('faults');
    this.#opening = options.coverAll ? this.#rng.shuffle(FAULT_KINDS.filter((kind) => options.weights[kind] > 0)) : [];
  }

  /** How many faults the opening round has (every enabled kind once, or none). */
  get openingLength(): number {
    return this.#opening.length;
  }

  next(): PlannedFault {
    const rng = this.#rng;
    const kind = this.#opening[this.#index] ?? rng.weighted(this.#options.weights);
    this.#index += 1;
    // Every draw happens for every kind, so the parameters of later faults do not depend on
    // which kinds came before.
    const gapMs = rng.int(this.#options.gapMs);
    const pick = rng.next();
    const pauseMs = rng.int(this.#options.pauseMs);
    const sockets = rng.int(this.#options.sockets);
    return {
      index: this.#index,
      kind,
      gapMs,
      pick,
      ...(kind === 'stop-worker' ? { pauseMs } : {}),
      ...(kind === 'drop-sockets' ? { sockets } : {}),
    };
  }
}

/** The candidate a fault's `pick` designates, or undefined when there is none. */
export function pickVictim<T>(candidates: readonly T[], pick: number): T | undefined {
  if (candidates.length === 0) return undefined;
  return candidates[Math.min(candidates.length - 1, Math.floor(pick * candidates.length))];
}

/** One line for logs: `#3 stop-worker (pause 3200 ms)`. */
export function describePlannedFault(fault: PlannedFault): string {
  const extra = fault.pauseMs !== undefined ? ` (pause ${fault.pauseMs} ms)` : fault.sockets !== undefined ? ` (${fault.sockets} sockets)` : '';
  return `#${fault.index} ${fault.kind}${extra}`;
}
