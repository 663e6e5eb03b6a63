/**
 * The verification feedback of docs/spec/plans.md#verification-results: the result of running tests, linters, type checkers
 * or builds after a change, in a shape the model can act on to repair its own work.
 */
import { z } from 'zod';
import { LongTextSchema, TextSchema, boundedArray } from './primitives.js';

/**
 * What kind of check produced the result. `test_failure` is the original design's; the others
 * cover the runners it plans for (pytest/eslint unified runner, project type detection;
 * docs/spec/plans.md#verification-results):
 * `lint_failure`, `type_error`, `build_failure`, `runtime_error` (the check crashed),
 * `timeout` (the check did not finish), and `passed` for a successful run.
 */
export const VerificationTypeSchema = z
  .enum(['passed', 'test_failure', 'lint_failure', 'type_error', 'build_failure', 'runtime_error', 'timeout'])
  .meta({ id: 'VerificationType', description: 'Kind of verification outcome; passed exactly when ok.' });
export type VerificationType = z.infer<typeof VerificationTypeSchema>;

/** One finding: where (`file`, 1-based `line`), what went wrong, and optionally the code around it. */
export const VerificationDetailSchema = z
  .strictObject({
    file: TextSchema.min(1),
    line: z.int().positive(),
    error: TextSchema.min(1),
    context: LongTextSchema.optional(),
  })
  .meta({ id: 'VerificationDetail', description: 'One verification finding: file, line, error, optional context.' });
export type VerificationDetail = z.infer<typeof VerificationDetailSchema>;

/**
 * A verification result. Invariants: `type` is `passed` exactly when `ok` is true; a failed result
 * has a non-blank `summary`. `details` may be omitted (it parses as `[]`): a successful run has
 * nothing to report, and a failure without locations (a crashed build) still has a summary.
 */
export const VerificationResultSchema = z
  .strictObject({
    ok: z.boolean(),
    type: VerificationTypeSchema,
    summary: TextSchema,
    details: boundedArray(VerificationDetailSchema).default([]),
    suggestion: TextSchema.optional(),
  })
  .superRefine((result, ctx) => {
    if (result.ok && result.type !== 'passed') {
      ctx.addIssue({ code: 'custom', path: ['type'], message: `a successful result must have type "passed", not "${result.type}"` });
    }
    if (!result.ok && result.type === 'passed') {
      ctx.addIssue({ code: 'custom', path: ['type'], message: 'a failed result cannot have type "passed"' });
    }
    if (!result.ok && result.summary.trim() === '') {
      ctx.addIssue({ code: 'custom', path: ['summary'], message: 'a failed result needs a summary' });
    }
  })
  .meta({ id: 'VerificationResult', description: 'Outcome of a verification run, with findings and a suggestion.' });
export type VerificationResult = z.infer<typeof VerificationResultSchema>;
