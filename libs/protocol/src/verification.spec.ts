import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SEED_VERIFICATION_RESULT } from '../test/fixtures/domain-seeds.js';
import { LIMITS } from './primitives.js';
import { VerificationDetailSchema, VerificationResultSchema, VerificationTypeSchema } from './verification.js';

function issues(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  return result.error?.issues ?? [];
}

describe('VerificationResultSchema', () => {
  it('parses the design example of docs/spec/plans.md#verification-results unchanged', () => {
    expect(VerificationResultSchema.parse(SEED_VERIFICATION_RESULT)).toEqual(SEED_VERIFICATION_RESULT);
  });

  it('a passing result needs no details (they default to [])', () => {
    expect(VerificationResultSchema.parse({ ok: true, type: 'passed', summary: '15 passed' })).toEqual({
      ok: true,
      type: 'passed',
      summary: '15 passed',
      details: [],
    });
    expect(VerificationResultSchema.parse({ ok: true, type: 'passed', summary: '' }).summary).toBe('');
  });

  it('a failed result needs a non-blank summary', () => {
    expect(issues(VerificationResultSchema, { ...SEED_VERIFICATION_RESULT, summary: '  ' })[0]).toMatchObject({
      path: ['summary'],
      message: 'a failed result needs a summary',
    });
  });

  it('a failed result without locations is fine (a crashed build)', () => {
    const r = { ok: false, type: 'build_failure', summary: 'tsc exited with code 2' };
    expect(VerificationResultSchema.parse(r).details).toEqual([]);
  });

  it('type is passed exactly when ok', () => {
    expect(issues(VerificationResultSchema, { ...SEED_VERIFICATION_RESULT, ok: true })[0]).toMatchObject({ path: ['type'] });
    expect(issues(VerificationResultSchema, { ...SEED_VERIFICATION_RESULT, type: 'passed' })[0]).toMatchObject({
      path: ['type'],
      message: 'a failed result cannot have type "passed"',
    });
  });

  it('knows the documented types and no others', () => {
    for (const t of ['passed', 'test_failure', 'lint_failure', 'type_error', 'build_failure', 'runtime_error', 'timeout']) {
      expect(VerificationTypeSchema.parse(t)).toBe(t);
    }
    expect(issues(VerificationResultSchema, { ...SEED_VERIFICATION_RESULT, type: 'flaky' })[0]).toMatchObject({
      code: 'invalid_value',
      path: ['type'],
    });
  });

  it('ok must be a boolean and extra keys are rejected', () => {
    expect(issues(VerificationResultSchema, { ...SEED_VERIFICATION_RESULT, ok: 'false' })[0]).toMatchObject({
      code: 'invalid_type',
      path: ['ok'],
    });
    expect(issues(VerificationResultSchema, { ...SEED_VERIFICATION_RESULT, exit_code: 1 })[0]).toMatchObject({
      code: 'unrecognized_keys',
    });
  });
});

describe('VerificationDetailSchema', () => {
  const detail = SEED_VERIFICATION_RESULT.details[0]!;

  it('line is a positive integer', () => {
    for (const line of [0, -1, 4.5, '45']) {
      expect(issues(VerificationDetailSchema, { ...detail, line })[0]?.path).toEqual(['line']);
    }
  });

  it('context is optional, file and error are required', () => {
    const { context: _c, ...rest } = detail;
    expect(VerificationDetailSchema.parse(rest)).toEqual(rest);
    const found = issues(VerificationDetailSchema, { line: 1 });
    expect(found.map((i) => i.path)).toEqual([['file'], ['error']]);
  });

  it('rejects a context beyond the long-text limit', () => {
    expect(issues(VerificationDetailSchema, { ...detail, context: 'x'.repeat(LIMITS.maxLongText + 1) })[0]).toMatchObject({
      code: 'too_big',
      path: ['context'],
    });
  });

  it('reports bad details at their index in the result', () => {
    const bad = { ...SEED_VERIFICATION_RESULT, details: [detail, { ...detail, line: 0 }] };
    expect(issues(VerificationResultSchema, bad)[0]).toMatchObject({ path: ['details', 1, 'line'] });
  });
});
