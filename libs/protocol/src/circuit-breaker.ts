/**
 * The circuit breakers of docs/spec/circuit-breakers.md: the limits that stop a runaway agent loop, and the codes
 * reported when one trips. The boundary checks live here so the SDK (which trips them) and the
 * server (which reports and audits them) cannot disagree by one.
 */
import { z } from 'zod';

/**
 * What tripped. `E_STUTTERING`: the same tool call repeated too often; `E_TIMEOUT`: a tool ran past
 * its timeout and was killed; `MAX_ITER`: the loop hit its iteration limit; `HISTORY_TRIMMED`: the
 * history overflowed the context and the oldest user/assistant pairs were dropped (system kept).
 */
export const CIRCUIT_BREAKER_CODES = ['E_STUTTERING', 'E_TIMEOUT', 'MAX_ITER', 'HISTORY_TRIMMED'] as const;

export const CircuitBreakerCodeSchema = z.enum(CIRCUIT_BREAKER_CODES).meta({
  id: 'CircuitBreakerCode',
  description: 'E_STUTTERING | E_TIMEOUT | MAX_ITER | HISTORY_TRIMMED.',
});
export type CircuitBreakerCode = z.infer<typeof CircuitBreakerCodeSchema>;

/**
 * Why an agent turn ended. `completed`: the model finished on its own. `MAX_ITER`: the iteration
 * breaker tripped and a person must intervene (docs/spec/circuit-breakers.md#iteration-limit, spelled as the original design does). `aborted`:
 * cancelled by the user or an operator. `shutdown`: the agent accepted a shutdown request.
 * `error`: an unrecoverable error ended the turn.
 */
export const StopReasonSchema = z.enum(['completed', 'MAX_ITER', 'aborted', 'shutdown', 'error']).meta({
  id: 'StopReason',
  description: 'Why an agent turn ended: completed | MAX_ITER | aborted | shutdown | error.',
});
export type StopReason = z.infer<typeof StopReasonSchema>;

/**
 * Breaker limits. Each limit is the largest allowed value; one more trips the breaker.
 * `tool_timeout_s` has no default: without it tools run without a protocol-level timeout.
 */
export const CircuitBreakerLimitsSchema = z
  .strictObject({
    /** @defaultValue 50 (docs/spec/circuit-breakers.md#stuttering: counter > 50) */
    max_identical_tool_calls: z.int().positive().default(50),
    /** @defaultValue 20 (docs/spec/circuit-breakers.md#iteration-limit: iterations > 20) */
    max_iterations: z.int().positive().default(20),
    tool_timeout_s: z.number().positive().max(86_400).optional(),
  })
  .meta({ id: 'CircuitBreakerLimits', description: 'Loop limits: identical tool calls, iterations, tool timeout.' });
export type CircuitBreakerLimits = z.infer<typeof CircuitBreakerLimitsSchema>;

/** The limits of docs/spec/circuit-breakers.md#breakers: more than 50 identical tool calls stutter, more than 20 iterations stop. */
export const DEFAULT_CIRCUIT_BREAKER_LIMITS: Readonly<CircuitBreakerLimits> = Object.freeze({
  max_identical_tool_calls: 50,
  max_iterations: 20,
});

/** True when `count` identical tool calls exceed the limit (51 with the default): report `E_STUTTERING`. */
export function isStuttering(
  count: number,
  limits: Pick<CircuitBreakerLimits, 'max_identical_tool_calls'> = DEFAULT_CIRCUIT_BREAKER_LIMITS,
): boolean {
  return count > limits.max_identical_tool_calls;
}

/** True when `iterations` exceed the limit (21 with the default): stop with `MAX_ITER`. */
export function exceedsIterations(
  iterations: number,
  limits: Pick<CircuitBreakerLimits, 'max_iterations'> = DEFAULT_CIRCUIT_BREAKER_LIMITS,
): boolean {
  return iterations > limits.max_iterations;
}
