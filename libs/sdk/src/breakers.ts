/**
 * The loop circuit breakers of docs/spec/circuit-breakers.md, enforced in the agent so a runaway loop stops without
 * waiting for the server: stuttering (the same tool call over and over) and too many iterations.
 * The boundaries come from @ahp/protocol (`isStuttering`, `exceedsIterations`), which the server's
 * circuit-breaker oracle uses too, so both sides trip on the same call.
 */
import { DEFAULT_CIRCUIT_BREAKER_LIMITS, exceedsIterations, isStuttering } from '@ahp/protocol/wire';
import { toolCallKey } from './tool-signature.js';

/** Limits of {@link LoopBreakers}; each is the largest allowed value, one more trips. */
export interface LoopLimits {
  /** @defaultValue 50 (the server's default: the 51st identical call stutters) */
  readonly maxIdenticalToolCalls?: number;
  /** @defaultValue 20 (the server's default: the 21st iteration stops the loop) */
  readonly maxIterations?: number;
}

/** The verdict on one tool call: run it, or refuse with `E_STUTTERING`. */
export type ToolCallCheck = { readonly ok: true; readonly count: number } | { readonly ok: false; readonly code: 'E_STUTTERING'; readonly count: number; readonly message: string };

/**
 * Counts tool calls and iterations of one agent session. Not a timer and not an enforcer: the loop
 * asks before acting and decides what to do with a trip (feed `E_STUTTERING` back to the model,
 * stop with `MAX_ITER`).
 */
export class LoopBreakers {
  readonly #maxCalls: number;
  readonly #maxIterations: number;
  readonly #calls = new Map<string, number>();
  #iteration = 0;

  constructor(limits: LoopLimits = {}) {
    this.#maxCalls = positiveInt('maxIdenticalToolCalls', limits.maxIdenticalToolCalls ?? DEFAULT_CIRCUIT_BREAKER_LIMITS.max_identical_tool_calls);
    this.#maxIterations = positiveInt('maxIterations', limits.maxIterations ?? DEFAULT_CIRCUIT_BREAKER_LIMITS.max_iterations);
  }

  /** The current iteration number (0 before the first {@link nextIteration}). */
  get iteration(): number {
    return this.#iteration;
  }

  /**
   * Starts the next iteration. Returns its number (for `context.loop.iteration` on hooks) and
   * whether it is over the limit, in which case the loop must stop with `MAX_ITER`.
   */
  nextIteration(): { readonly iteration: number; readonly exceeded: boolean } {
    this.#iteration += 1;
    return { iteration: this.#iteration, exceeded: exceedsIterations(this.#iteration, { max_iterations: this.#maxIterations }) };
  }

  /**
   * Counts a tool call about to run (identical = same name and canonical input, as on the server)
   * and says whether it may run. A refused call is still counted, as the server counts every
   * pre-tool-use hook: repeating it keeps it refused.
   */
  checkToolCall(toolName: string, input: unknown): ToolCallCheck {
    const key = toolCallKey(toolName, input);
    const count = (this.#calls.get(key) ?? 0) + 1;
    this.#calls.set(key, count);
    if (!isStuttering(count, { max_identical_tool_calls: this.#maxCalls })) return { ok: true, count };
    return {
      ok: false,
      code: 'E_STUTTERING',
      count,
      message: `E_STUTTERING: this exact ${toolName} call has been made ${count} times (limit ${this.#maxCalls}); repeating it will not help, change approach.`,
    };
  }
}

function positiveInt(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
