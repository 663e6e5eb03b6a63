/**
 * Parsing a value once per process: a value a schema produced here is not parsed by the same
 * schema again when it is handed on inside the process.
 *
 * WHY: a decision is built and parsed by `evaluateHook` and handed, unchanged, to the hook store,
 * which parsed it again before writing it; on the decision hot path zod is 6–10 % of a worker's
 * CPU (BENCHMARKS.md, "The shape of a decision"). Boundaries still parse everything they receive:
 * a frame, an HTTP body, a value read back from Redis is never a value this process produced.
 *
 * The mark is on the object zod returned (zod always returns a new object for an object schema),
 * so a value rebuilt from it (`{ ...decision, x }`) is parsed again; only a value changed in place
 * after its parse would slip through, and nothing on these paths does that: parsed values are
 * treated as immutable.
 */
import type { z } from 'zod';

/** Outputs of a parse in this process, with the schema that produced each. */
const producedBy = new WeakMap<object, z.ZodType>();

/**
 * `schema.safeParse(value)`, unless `value` is the output of an earlier `parseOnce` with this same
 * schema, which is returned as it is. Successful object outputs are remembered.
 */
export function parseOnce<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.output<S>> {
  if (typeof value === 'object' && value !== null && producedBy.get(value) === schema) {
    return { success: true, data: value as z.output<S> };
  }
  const result = schema.safeParse(value);
  if (result.success && typeof result.data === 'object' && result.data !== null) producedBy.set(result.data, schema);
  return result;
}
