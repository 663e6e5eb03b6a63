/**
 * The agent side of verification feedback (docs/spec/plans.md#verification-results): after a check runs (tests, lint, a build)
 * the agent reports the `VerificationResult` to its timeline, and passes the test facts into the
 * hook context where gates such as `test-gate` read them.
 */
import { VerificationResultSchema } from '@ahp/protocol/wire';
import type { JsonObject, VerificationResult } from '@ahp/protocol/wire';
import { reportQuietly } from './event-sink.js';
import type { EventSink } from './event-sink.js';
import { silentLogger } from './logger.js';
import type { Logger } from './logger.js';

/** Options of {@link reportVerification}. */
export interface ReportVerificationOptions {
  /** The plan step that was verified. @defaultValue none: the result belongs to the whole run */
  readonly stepId?: string;
  /** @defaultValue {@link silentLogger} */
  readonly logger?: Logger;
}

/**
 * Validates `result` (throws a `ZodError` when it breaks the protocol's invariants, e.g. `ok`
 * with a failure type) and reports it as a `verification` event. Resolves with the parsed result
 * (`details` defaulted to `[]`); a failed report is logged, not thrown.
 */
export async function reportVerification(
  sink: EventSink | undefined,
  result: VerificationResult,
  options: ReportVerificationOptions = {},
): Promise<VerificationResult> {
  const parsed = VerificationResultSchema.parse(result);
  const event = { kind: 'verification' as const, result: parsed, ...(options.stepId === undefined ? {} : { step_id: options.stepId }) };
  await reportQuietly(sink, event, options.logger ?? silentLogger);
  return parsed;
}

/**
 * The hook-context facts of a verification result, to merge into the context of the next gate
 * hook (`stop`, `pre-issue-close`, …): `{ tests: { failed_count } }`. A passed run counts 0; a
 * `test_failure` counts its findings (at least 1: a failure without locations is still one). Other
 * kinds (lint, types, build) say nothing about tests, and give `{}`.
 */
export function verificationContext(result: VerificationResult): JsonObject {
  if (result.type === 'passed') return { tests: { failed_count: 0 } };
  if (result.type === 'test_failure') return { tests: { failed_count: Math.max(result.details.length, 1) } };
  return {};
}
