import { describe, expect, it } from 'vitest';
import {
  AhpErrorSchema,
  CLOSE_CODES,
  CLOSE_CODE_RANGES,
  ERROR_CODES,
  ERROR_CODE_LIST,
  ErrorCodeSchema,
  STANDARD_CLOSE_CODES,
  closeCodeAllowsReconnect,
  closeCodeName,
  isErrorCode,
  makeError,
} from './errors.js';
import { LIMITS } from './primitives.js';

describe('ERROR_CODES', () => {
  it('contains every code the protocol promises', () => {
    const required = [
      'E_BAD_FRAME',
      'E_UNKNOWN_TYPE',
      'E_INVALID_FRAME',
      'E_FRAME_TOO_LARGE',
      'E_UNSUPPORTED_VERSION',
      'E_UNAUTHORIZED',
      'E_FORBIDDEN',
      'E_NOT_FOUND',
      'E_CONFLICT',
      'E_TYPE_MISMATCH',
      'E_INVALID_ACTION',
      'E_TIMEOUT',
      'E_STUTTERING',
      'E_MAX_ITER',
      'E_PLAN_PENDING',
      'E_RATE_LIMITED',
      'E_UNAVAILABLE',
      'E_SHUTTING_DOWN',
      'E_INTERNAL',
    ];
    for (const code of required) expect(ERROR_CODE_LIST).toContain(code);
  });

  it('names every code E_UPPER_SNAKE and describes it in one line', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^E_[A-Z][A-Z_]*$/);
      expect(info.description.length).toBeGreaterThan(10);
      expect(info.description).not.toContain('\n');
    }
  });

  it('marks transient failures retryable and request faults not', () => {
    expect(ERROR_CODES.E_RATE_LIMITED.retryable).toBe(true);
    expect(ERROR_CODES.E_TIMEOUT.retryable).toBe(true);
    expect(ERROR_CODES.E_SHUTTING_DOWN.retryable).toBe(true);
    expect(ERROR_CODES.E_INVALID_FRAME.retryable).toBe(false);
    expect(ERROR_CODES.E_CONFLICT.retryable).toBe(false);
    expect(ERROR_CODES.E_UNAUTHORIZED.retryable).toBe(false);
  });

  it('ErrorCodeSchema accepts exactly the table', () => {
    for (const code of ERROR_CODE_LIST) expect(ErrorCodeSchema.safeParse(code).success).toBe(true);
    expect(ErrorCodeSchema.safeParse('E_NOPE').success).toBe(false);
    expect(ErrorCodeSchema.safeParse('e_internal').success).toBe(false);
  });

  it('isErrorCode does not fall for prototype keys', () => {
    expect(isErrorCode('E_CONFLICT')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('__proto__')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});

describe('makeError', () => {
  it('takes retryable from the table and passes the schema', () => {
    for (const code of ERROR_CODE_LIST) {
      const error = makeError(code, 'something happened');
      expect(error.retryable).toBe(ERROR_CODES[code].retryable);
      expect(AhpErrorSchema.parse(error)).toEqual(error);
    }
  });

  it('keeps details and a retry hint', () => {
    const error = makeError('E_RATE_LIMITED', 'slow down', { limit: 100 }, { retryAfterMs: 1500.4 });
    expect(error).toEqual({
      code: 'E_RATE_LIMITED',
      message: 'slow down',
      retryable: true,
      details: { limit: 100 },
      retry_after_ms: 1500,
    });
    expect(AhpErrorSchema.safeParse(error).success).toBe(true);
  });

  it('clamps the retry hint and drops non-finite values', () => {
    expect(makeError('E_UNAVAILABLE', 'x', undefined, { retryAfterMs: -5 }).retry_after_ms).toBe(0);
    expect(makeError('E_UNAVAILABLE', 'x', undefined, { retryAfterMs: Number.NaN })).not.toHaveProperty('retry_after_ms');
    const huge = makeError('E_UNAVAILABLE', 'x', undefined, { retryAfterMs: 1e15 });
    expect(AhpErrorSchema.safeParse(huge).success).toBe(true);
  });

  it('never produces a message the schema rejects', () => {
    expect(AhpErrorSchema.safeParse(makeError('E_INTERNAL', '')).success).toBe(true);
    const long = makeError('E_INTERNAL', 'x'.repeat(LIMITS.maxText * 2));
    expect(long.message.length).toBe(LIMITS.maxText);
    expect(AhpErrorSchema.safeParse(long).success).toBe(true);
  });
});

describe('AhpErrorSchema', () => {
  it('rejects unknown codes, extra keys and unsafe details', () => {
    const base = { code: 'E_INTERNAL', message: 'm', retryable: true };
    expect(AhpErrorSchema.safeParse(base).success).toBe(true);
    expect(AhpErrorSchema.safeParse({ ...base, code: 'E_WHAT' }).success).toBe(false);
    expect(AhpErrorSchema.safeParse({ ...base, stack: 'at x' }).success).toBe(false);
    expect(AhpErrorSchema.safeParse({ ...base, details: JSON.parse('{"a":{"__proto__":{"x":1}}}') }).success).toBe(false);
    expect(AhpErrorSchema.safeParse({ ...base, retry_after_ms: -1 }).success).toBe(false);
  });
});

describe('close codes', () => {
  it('places every named code in one of the two ranges', () => {
    for (const code of Object.values(CLOSE_CODES)) {
      const inReconnect = code >= CLOSE_CODE_RANGES.reconnect.min && code <= CLOSE_CODE_RANGES.reconnect.max;
      const inStop = code >= CLOSE_CODE_RANGES.stop.min && code <= CLOSE_CODE_RANGES.stop.max;
      expect(inReconnect !== inStop).toBe(true);
    }
  });

  it('has no duplicate numbers', () => {
    const numbers = Object.values(CLOSE_CODES);
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('decides reconnection by range', () => {
    expect(closeCodeAllowsReconnect(CLOSE_CODES.GOING_AWAY)).toBe(true);
    expect(closeCodeAllowsReconnect(CLOSE_CODES.HEARTBEAT_TIMEOUT)).toBe(true);
    expect(closeCodeAllowsReconnect(CLOSE_CODES.SESSION_REPLACED)).toBe(true);
    expect(closeCodeAllowsReconnect(4099)).toBe(true);
    expect(closeCodeAllowsReconnect(CLOSE_CODES.UNAUTHORIZED)).toBe(false);
    expect(closeCodeAllowsReconnect(CLOSE_CODES.FORBIDDEN)).toBe(false);
    expect(closeCodeAllowsReconnect(CLOSE_CODES.UNSUPPORTED_VERSION)).toBe(false);
    expect(closeCodeAllowsReconnect(CLOSE_CODES.PROTOCOL_VIOLATION)).toBe(false);
    expect(closeCodeAllowsReconnect(4499)).toBe(false);
  });

  it('handles the standard codes', () => {
    expect(closeCodeAllowsReconnect(1000)).toBe(false);
    expect(closeCodeAllowsReconnect(1001)).toBe(true);
    expect(closeCodeAllowsReconnect(1006)).toBe(true);
    expect(closeCodeAllowsReconnect(1008)).toBe(false);
    expect(closeCodeAllowsReconnect(1009)).toBe(false);
    expect(closeCodeAllowsReconnect(1011)).toBe(true);
    expect(closeCodeAllowsReconnect(1012)).toBe(true);
    expect(closeCodeAllowsReconnect(1013)).toBe(true);
    for (const code of Object.keys(STANDARD_CLOSE_CODES).map(Number)) {
      expect(code).toBeGreaterThanOrEqual(1000);
      expect(code).toBeLessThan(1016);
    }
  });

  it('reconnects after codes it does not know', () => {
    expect(closeCodeAllowsReconnect(4200)).toBe(true);
    expect(closeCodeAllowsReconnect(3000)).toBe(true);
    expect(closeCodeAllowsReconnect(0)).toBe(true);
  });

  it('names our codes and only ours', () => {
    expect(closeCodeName(4000)).toBe('GOING_AWAY');
    expect(closeCodeName(4426)).toBe('UNSUPPORTED_VERSION');
    expect(closeCodeName(1000)).toBeUndefined();
  });
});
