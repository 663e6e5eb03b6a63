/** Checks what an operator typed as a tool's edited input before it is sent. */
import { JsonObjectSchema, describeIssues, type JsonObject } from '@ahp/protocol';

export type JsonObjectInput = { ok: true; value: JsonObject } | { ok: false; message: string };

/** Parses `text` as a JSON object within the protocol's limits; the message says what is wrong. */
export function parseJsonObjectInput(text: string): JsonObjectInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: `the input must be a JSON object ({…}), not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}` };
  }
  const checked = JsonObjectSchema.safeParse(value);
  if (!checked.success) {
    return { ok: false, message: `the input is not acceptable: ${describeIssues(checked.error.issues, { max: 1 }) || 'schema mismatch'}` };
  }
  return { ok: true, value: checked.data };
}
