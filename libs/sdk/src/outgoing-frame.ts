/**
 * Client-side validation of an outgoing frame: a frame the gateway would refuse fails here with
 * `E_INVALID_FRAME`, without a round trip, listing the first issues.
 */
import { issueDetails, type SchemaIssue } from '@ahp/protocol/wire';
import { AhpClientError } from './errors.js';

/** The part of a zod schema this module uses (the SDK does not depend on zod itself). */
export interface FrameSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

/** The error for a frame that failed its schema: `E_INVALID_FRAME` with up to ten issues in `details.issues`. */
export function invalidFrame(message: string, issues: readonly SchemaIssue[]): AhpClientError {
  return new AhpClientError('E_INVALID_FRAME', message, { details: issueDetails(issues) });
}

/** `frame` parsed by `schema`, or an `E_INVALID_FRAME` thrown as "invalid <what>: <first issue>". */
export function checkOutgoing<T>(schema: FrameSchema<T>, frame: unknown, what: string): T {
  const checked = schema.safeParse(frame);
  if (!checked.success) throw invalidFrame(`invalid ${what}: ${checked.error.issues[0]?.message ?? 'schema mismatch'}`, checked.error.issues);
  return checked.data;
}
