/**
 * What each synthetic hook asks for. The choice is a pure function of the run's seed and the
 * hook's stamp, so it does not depend on how the agents' hooks happen to interleave: replaying a
 * seed asks the same questions with the same stamps.
 */
import { defaultFailurePolicy, type HookTrigger, type JsonObject } from '@ahp/protocol';
import type { HookStamp } from './hook-ledger.js';
import { Rng, type Range, type Seed } from './random.js';

/** The fail-closed trigger of the workload: a gate before a tool call. */
export const FAIL_CLOSED_TRIGGER: HookTrigger = 'pre-tool-use';
/** The fail-open trigger of the workload: a report after a tool call. */
export const FAIL_OPEN_TRIGGER: HookTrigger = 'post-tool-use';

/** Options of {@link planHook}. */
export interface WorkloadOptions {
  /**
   * Share of hooks the test oracle takes its time on, so that kills and pauses land mid-job.
   * @defaultValue 0.25
   */
  readonly slowShare: number;
  /**
   * How long a slow evaluation takes.
   * @defaultValue 500..3000
   */
  readonly slowMs: Range;
  /**
   * Share of fail-closed hooks the test oracle blocks, so a decision's content is checked too.
   * @defaultValue 0.2
   */
  readonly blockShare: number;
  /**
   * Share of hooks at the fail-open trigger; the rest use the fail-closed one.
   * @defaultValue 0.3
   */
  readonly failOpenShare: number;
  /**
   * Pause between two hooks of one agent lane.
   * @defaultValue 20..200
   */
  readonly thinkMs: Range;
}

/** The default workload. */
export const DEFAULT_WORKLOAD: WorkloadOptions = Object.freeze({
  slowShare: 0.25,
  slowMs: Object.freeze({ min: 500, max: 3000 }),
  blockShare: 0.2,
  failOpenShare: 0.3,
  thinkMs: Object.freeze({ min: 20, max: 200 }),
});

/** One hook to send. */
export interface HookPlan {
  readonly trigger: HookTrigger;
  /** The hook's context: `extra.chaos` carries the stamp and the instructions for the test oracle. */
  readonly context: JsonObject;
  /** What the decision says when oracles decide. */
  readonly allowedByOracles: boolean;
  /** What the decision says when the trigger's failure policy decides. */
  readonly allowedByPolicy: boolean;
  /** Pause after this hook settled, before the lane sends its next one. */
  readonly thinkMs: number;
}

/**
 * A tool-hook context carrying the chaos stamp: a harmless, unique tool call (so the typed context
 * of docs/protocol.md holds and no breaker sees identical calls) with the stamp and the test
 * oracle's instructions under `extra.chaos`, the agent's free-form area.
 */
export function chaosContext(chaos: JsonObject): JsonObject {
  return { tool: { name: 'chaos-probe', input: { agent: chaos['agent'] ?? null, seq: chaos['seq'] ?? null } }, extra: { chaos } };
}

/** A stable 32-bit hash of the stamp, mixed into the seed. */
function stampSeed(seed: Seed, stamp: HookStamp): Seed {
  let hash = 0x811c9dc5 ^ seed;
  for (const char of `${stamp.agent}#${stamp.seq}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash >>> 0;
}

/** The hook with stamp `stamp` in the run with `seed`. */
export function planHook(seed: Seed, stamp: HookStamp, options: WorkloadOptions): HookPlan {
  const rng = new Rng(stampSeed(seed, stamp));
  const trigger = rng.chance(options.failOpenShare) ? FAIL_OPEN_TRIGGER : FAIL_CLOSED_TRIGGER;
  const slowMs = rng.chance(options.slowShare) ? rng.int(options.slowMs) : 0;
  // Only a pre-* gate may block (docs/spec/hooks-and-oracles.md#triggers); the test oracle blocks nothing else.
  const block = trigger === FAIL_CLOSED_TRIGGER && rng.chance(options.blockShare);
  const thinkMs = rng.int(options.thinkMs);
  return {
    trigger,
    context: chaosContext({ agent: stamp.agent, seq: stamp.seq, ...(slowMs > 0 ? { slow_ms: slowMs } : {}), ...(block ? { verdict: 'block' } : {}) }),
    allowedByOracles: !block,
    allowedByPolicy: defaultFailurePolicy(trigger) === 'fail_open',
    thinkMs,
  };
}
