/**
 * The settings of a chaos run, their defaults (a full run) and the preset of the short CI run.
 */
import { FAULT_KINDS, checkFaultPlanOptions, type FaultKind, type FaultPlanOptions, type FaultWeights } from './fault-plan.js';
import type { Range, Seed } from './random.js';
import { DEFAULT_WORKLOAD, type WorkloadOptions } from './workload.js';

/** How the oracle workers hold and recover BullMQ jobs (AHP_WORKER_* variables). */
export interface BullmqSettings {
  /** AHP_WORKER_LOCK_MS: a job of a dead worker runs again once its lock expired. */
  readonly lockMs: number;
  /** AHP_WORKER_STALLED_INTERVAL_MS: how often workers look for such jobs. */
  readonly stalledIntervalMs: number;
  /** AHP_WORKER_MAX_STALLED: stalls a job survives before it fails for good. */
  readonly maxStalled: number;
}

/**
 * The lock and stall settings this project recommends for production; the chaos run uses them so
 * it measures what production would see. docs/reliability.md explains the choice.
 */
export const RECOMMENDED_BULLMQ: BullmqSettings = Object.freeze({ lockMs: 4000, stalledIntervalMs: 2000, maxStalled: 2 });

/** The approvals and inbox tracks (run when the SDK has them). */
export interface TrackOptions {
  /** Agents that submit plans to the team's lead, one after the other. */
  readonly planners: number;
  /** Pause between two plans of one planner. */
  readonly planIntervalMs: Range;
  /** Each plan approval's `deadline_ms`; an approval still undecided then counts as lost. */
  readonly requestDeadlineMs: number;
  /** Pause between two messages of one agent (every hook agent also messages its teammates). */
  readonly messageIntervalMs: Range;
  /** After the faults, how long accepted messages may take to reach their recipients. */
  readonly inboxDrainMs: number;
}

/** Everything a chaos run needs to know. */
export interface ChaosOptions {
  /** The run's seed; it fixes the fault plan and the workload. */
  readonly seed: Seed;
  /** How long faults are injected (after the warm-up, before the drain). */
  readonly durationMs: number;
  /** Time without faults at the start, for a baseline. */
  readonly warmupMs: number;
  /**
   * Time without faults after the last one, before the drain: the system must work again, and the
   * last fault's recovery needs traffic after it to be measured.
   */
  readonly cooldownMs: number;
  readonly gateways: number;
  readonly workers: number;
  readonly agents: number;
  /** Hooks each agent keeps outstanding at once. */
  readonly lanes: number;
  readonly faults: FaultPlanOptions;
  readonly workload: WorkloadOptions;
  readonly tracks: TrackOptions;
  readonly bullmq: BullmqSettings;
  /** AHP_HOOK_DEADLINE_MS: the gateway answers by failure policy after this long. */
  readonly gatewayDeadlineMs: number;
  /** The agents' own deadline (SDK `hookDeadlineMs`); firing it means the hook was lost. */
  readonly agentDeadlineMs: number;
  /** A hook unsettled this long past the agent deadline is hung. */
  readonly graceMs: number;
}

/** Every fault kind equally often. */
export const EQUAL_WEIGHTS: FaultWeights = Object.freeze(Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 1])) as Record<FaultKind, number>);

/** A stop-worker pause that always outlasts the lock by 1 to 4 seconds. */
export function pauseBeyondLock(lockMs: number): Range {
  return { min: lockMs + 1000, max: lockMs + 4000 };
}

/** The defaults: a full run of ten minutes. */
export function defaultChaosOptions(seed: Seed): ChaosOptions {
  return {
    seed,
    durationMs: 600_000,
    warmupMs: 5_000,
    cooldownMs: 10_000,
    gateways: 3,
    workers: 3,
    agents: 12,
    lanes: 2,
    faults: {
      weights: EQUAL_WEIGHTS,
      gapMs: { min: 3_000, max: 8_000 },
      pauseMs: pauseBeyondLock(RECOMMENDED_BULLMQ.lockMs),
      sockets: { min: 1, max: 4 },
      coverAll: true,
    },
    workload: DEFAULT_WORKLOAD,
    tracks: {
      planners: 2,
      planIntervalMs: { min: 300, max: 1_500 },
      requestDeadlineMs: 30_000,
      messageIntervalMs: { min: 500, max: 2_000 },
      inboxDrainMs: 15_000,
    },
    bullmq: RECOMMENDED_BULLMQ,
    // The product defaults: the gateway's AHP_HOOK_DEADLINE_MS and the SDK's hookDeadlineMs.
    gatewayDeadlineMs: 10_000,
    agentDeadlineMs: 30_000,
    graceMs: 5_000,
  };
}

/**
 * The CI preset: about 100 s of faults on a smaller system (the suite runs on two shared cores),
 * with gaps short enough that every kind comes up at least once.
 */
export function ciChaosOptions(seed: Seed): ChaosOptions {
  const defaults = defaultChaosOptions(seed);
  return {
    ...defaults,
    durationMs: 100_000,
    warmupMs: 3_000,
    cooldownMs: 8_000,
    gateways: 2,
    workers: 2,
    agents: 8,
    faults: { ...defaults.faults, gapMs: { min: 2_000, max: 5_000 } },
  };
}

/** Throws a RangeError naming the first setting that would make the run meaningless. */
export function checkChaosOptions(options: ChaosOptions): void {
  const positive: [string, number][] = [
    ['durationMs', options.durationMs],
    ['gateways', options.gateways],
    ['workers', options.workers],
    ['agents', options.agents],
    ['lanes', options.lanes],
    ['tracks.planners', options.tracks.planners],
    ['tracks.requestDeadlineMs', options.tracks.requestDeadlineMs],
    ['gatewayDeadlineMs', options.gatewayDeadlineMs],
    ['agentDeadlineMs', options.agentDeadlineMs],
  ];
  for (const [name, value] of positive) {
    if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive whole number, got ${value}`);
  }
  // Replacements keep the counts up, but a kill must never take the last process of a kind.
  if (options.gateways < 2) throw new RangeError('gateways must be at least 2, so agents can fail over');
  if (options.workers < 2) throw new RangeError('workers must be at least 2, so a stalled job has somewhere to go');
  if (options.agents < 2) throw new RangeError('agents must be at least 2, so every agent has a teammate to message');
  checkFaultPlanOptions(options.faults);
  if (options.faults.weights['stop-worker'] > 0 && options.faults.pauseMs.min <= options.bullmq.lockMs) {
    throw new RangeError(`a stop-worker pause (${options.faults.pauseMs.min} ms) must outlast the job lock (${options.bullmq.lockMs} ms)`);
  }
  if (options.agentDeadlineMs <= options.gatewayDeadlineMs) {
    throw new RangeError('the agent deadline must exceed the gateway deadline, or every slow hook would count as lost');
  }
  if (options.workload.slowMs.max >= options.gatewayDeadlineMs) {
    throw new RangeError('slow evaluations must end before the gateway deadline, or no slow hook could be decided by its oracle');
  }
}
