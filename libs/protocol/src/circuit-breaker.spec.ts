import { describe, expect, it } from 'vitest';
import {
  CIRCUIT_BREAKER_CODES,
  CircuitBreakerCodeSchema,
  CircuitBreakerLimitsSchema,
  DEFAULT_CIRCUIT_BREAKER_LIMITS,
  StopReasonSchema,
  exceedsIterations,
  isStuttering,
} from './circuit-breaker.js';

describe('codes and stop reasons', () => {
  it('lists the four breaker codes of docs/spec/circuit-breakers.md#breakers', () => {
    expect(CIRCUIT_BREAKER_CODES).toEqual(['E_STUTTERING', 'E_TIMEOUT', 'MAX_ITER', 'HISTORY_TRIMMED']);
    expect(CircuitBreakerCodeSchema.safeParse('E_LOOP').error?.issues[0]?.code).toBe('invalid_value');
  });

  it('spells MAX_ITER as the original design does and rejects other spellings', () => {
    expect(StopReasonSchema.parse('MAX_ITER')).toBe('MAX_ITER');
    for (const r of ['completed', 'aborted', 'shutdown', 'error']) expect(StopReasonSchema.parse(r)).toBe(r);
    expect(StopReasonSchema.safeParse('max_iter').success).toBe(false);
  });
});

describe('CircuitBreakerLimitsSchema', () => {
  it('defaults to the limits of docs/spec/circuit-breakers.md#breakers', () => {
    expect(CircuitBreakerLimitsSchema.parse({})).toEqual({ max_identical_tool_calls: 50, max_iterations: 20 });
    expect(CircuitBreakerLimitsSchema.parse({})).toEqual(DEFAULT_CIRCUIT_BREAKER_LIMITS);
  });

  it('accepts overrides and a tool timeout', () => {
    expect(CircuitBreakerLimitsSchema.parse({ max_iterations: 5, tool_timeout_s: 30 })).toEqual({
      max_identical_tool_calls: 50,
      max_iterations: 5,
      tool_timeout_s: 30,
    });
  });

  it('rejects non-positive or fractional limits and unknown keys', () => {
    expect(CircuitBreakerLimitsSchema.safeParse({ max_iterations: 0 }).error?.issues[0]).toMatchObject({ path: ['max_iterations'] });
    expect(CircuitBreakerLimitsSchema.safeParse({ max_identical_tool_calls: 2.5 }).error?.issues[0]).toMatchObject({
      path: ['max_identical_tool_calls'],
    });
    expect(CircuitBreakerLimitsSchema.safeParse({ tool_timeout_s: -1 }).error?.issues[0]).toMatchObject({ path: ['tool_timeout_s'] });
    expect(CircuitBreakerLimitsSchema.safeParse({ max_iter: 3 }).error?.issues[0]).toMatchObject({ code: 'unrecognized_keys' });
  });

  it('the defaults are frozen', () => {
    expect(Object.isFrozen(DEFAULT_CIRCUIT_BREAKER_LIMITS)).toBe(true);
  });
});

describe('boundaries (docs/spec/circuit-breakers.md#breakers: counter > 50, iterations > 20)', () => {
  it('stutters at 51 identical calls, not at 50', () => {
    expect(isStuttering(50)).toBe(false);
    expect(isStuttering(51)).toBe(true);
  });

  it('stops at 21 iterations, not at 20', () => {
    expect(exceedsIterations(20)).toBe(false);
    expect(exceedsIterations(21)).toBe(true);
  });

  it('honours custom limits', () => {
    expect(isStuttering(4, { max_identical_tool_calls: 3 })).toBe(true);
    expect(exceedsIterations(3, { max_iterations: 3 })).toBe(false);
  });
});
