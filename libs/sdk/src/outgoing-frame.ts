/**
 * Client-side validation of an outgoing frame: a frame the gateway would refuse fails here with
 * `E_INVALID_FRAME`, without a round trip, listing the first issues.
 */
import { AhpClientError } from './errors.js';

/** One schema problem, as zod reports it. */
interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** The part of a zod schema this module uses (the SDK does not depend on zod itself). */
export interface FrameSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly Issue[] } };
}

/** The error for a frame that failed its schema: `E_INVALID_FRAME` with up to ten issues in `details.issues`. */
export function invalidFrame(message: string, issues: readonly Issue[]): AhpClientError {
  return new AhpClientError('E_INVALID_FRAME', message, {
    details: { issues: issues.slice(0, 10).map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })) },
  });
}

/** `frame` parsed by `schema`, or an `E_INVALID_FRAME` thrown as "invalid <what>: <first issue>". */
export function checkOutgoing<T>(schema: FrameSchema<T>, frame: unknown, what: string): T {
  const checked = schema.safeParse(frame);
  if (!checked.success) throw invalidFrame(`invalid ${what}: ${checked.error.issues[0]?.message ?? 'schema mismatch'}`, checked.error.issues);
  return checked.data;
}
