/**
 * Building blocks shared by every message family: identifiers, timestamps, size limits and a
 * JSON value schema that is safe to accept from an untrusted peer.
 *
 * Every wire object in this library is a strict object: an unknown key is an error, not silently
 * dropped. That makes "extra nesting" and smuggled keys (`__proto__`, `constructor`) visible, at
 * the price that an additive change is a protocol version bump (see `PROTOCOL_VERSION`).
 */
import { z } from 'zod';

/** Limits on what a peer may send inside one message. Enforced by the schemas below. */
export const LIMITS = {
  /** Names, ids, enum-like strings. */
  maxShortString: 256,
  /** Human text: reasons, messages, descriptions. */
  maxText: 16 * 1024,
  /** Large text blobs: a plan payload, a model output, a file excerpt. */
  maxLongText: 256 * 1024,
  /** Elements of any one array. */
  maxArrayLength: 1_000,
  /** Keys of any one object inside a free-form JSON value. */
  maxObjectKeys: 1_000,
  /** Nesting depth of a free-form JSON value (the value itself is depth 1). */
  maxJsonDepth: 32,
  /** Characters of any string inside a free-form JSON value. */
  maxJsonString: 64 * 1024,
  /**
   * Characters of all the strings of one hook context longer than `maxJsonString` together: the
   * tool's own text (a file written, an output read) may be up to `maxLongText` per string
   * (`hookContextStringLimit`), and this bounds what a context, and so a hook job, can hold of it.
   */
  maxLongTextTotal: 1024 * 1024,
} as const;

/** Keys that could reach an object's prototype chain when a consumer merges or spreads a value. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** An opaque identifier: letters, digits and `._:-`, 1 to 128 characters. */
export const IdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'must contain only letters, digits and . _ : -');
export type Id = z.infer<typeof IdSchema>;

/** A UUID (any version); signal ids and hook ids are UUIDs. */
export const UuidSchema = z.uuid();

/** An ISO 8601 timestamp with a time zone designator (`Z` or an offset). */
export const TimestampSchema = z.iso.datetime({ offset: true });
export type Timestamp = z.infer<typeof TimestampSchema>;

export const ShortStringSchema = z.string().min(1).max(LIMITS.maxShortString);
export const TextSchema = z.string().max(LIMITS.maxText);
export const LongTextSchema = z.string().max(LIMITS.maxLongText);

/** A bounded array: no peer can make us hold more than `LIMITS.maxArrayLength` elements. */
export function boundedArray<T extends z.ZodType>(item: T, max: number = LIMITS.maxArrayLength) {
  return z.array(item).max(max);
}

/** A JSON value as `JSON.parse` produces it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object: the free-form part of a message (a hook's context, a request's payload, …). */
export type JsonObject = { [key: string]: JsonValue };

/** One problem found by {@link inspectJsonValue}, with the path to the offending place. */
export interface JsonValueIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Where a free-form value's strings may be longer than `LIMITS.maxJsonString` (a hook context's
 * tool text, see hook-context-limits.ts); without it every string is held to `maxJsonString`.
 */
export interface JsonStringLimits {
  /** The most characters a string at `path` (from the inspected value) may have. */
  readonly maxStringAt: (path: readonly (string | number)[]) => number;
  /** The most characters all strings longer than `LIMITS.maxJsonString` may have together. */
  readonly maxLongTotal: number;
}

/**
 * Walks a parsed JSON value and reports what makes it unsafe or too large: depth beyond
 * `LIMITS.maxJsonDepth`, strings, arrays or objects over their limits, keys in
 * {@link FORBIDDEN_KEYS}, non-finite numbers and anything that is not JSON (functions, class
 * instances, `undefined`). Stops after `maxIssues` problems so a hostile value cannot make the
 * report itself large. Pure and iterative: a deeply nested input cannot overflow the stack.
 * Strings are held to `LIMITS.maxJsonString` unless `strings` says otherwise for their place.
 */
export function inspectJsonValue(value: unknown, maxIssues = 10, strings?: JsonStringLimits): JsonValueIssue[] {
  const issues: JsonValueIssue[] = [];
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  let longTotal = 0;
  for (let next = stack.pop(); next !== undefined && issues.length < maxIssues; next = stack.pop()) {
    const { value: current, path } = next;
    if (path.length >= LIMITS.maxJsonDepth) {
      issues.push({ path, message: `nested deeper than ${LIMITS.maxJsonDepth} levels` });
      continue;
    }
    if (current === null || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) issues.push({ path, message: 'number must be finite' });
      continue;
    }
    if (typeof current === 'string') {
      if (current.length <= LIMITS.maxJsonString) continue;
      const limit = strings === undefined ? LIMITS.maxJsonString : Math.max(LIMITS.maxJsonString, strings.maxStringAt(path));
      if (current.length > limit) {
        issues.push({ path, message: `string longer than ${limit} characters` });
        continue;
      }
      const before = longTotal;
      longTotal += current.length;
      if (strings !== undefined && longTotal > strings.maxLongTotal && before <= strings.maxLongTotal) {
        issues.push({ path, message: `strings over ${LIMITS.maxJsonString} characters total more than ${strings.maxLongTotal} characters` });
      }
      continue;
    }
    if (Array.isArray(current)) {
      if (current.length > LIMITS.maxArrayLength) {
        issues.push({ path, message: `array longer than ${LIMITS.maxArrayLength} elements` });
        continue;
      }
      current.forEach((item, index) => stack.push({ value: item, path: [...path, index] }));
      continue;
    }
    if (typeof current === 'object' && isPlainObject(current)) {
      const keys = Object.keys(current);
      if (keys.length > LIMITS.maxObjectKeys) {
        issues.push({ path, message: `object with more than ${LIMITS.maxObjectKeys} keys` });
        continue;
      }
      for (const key of keys) {
        if (key.length > LIMITS.maxShortString) {
          issues.push({ path: [...path, key.slice(0, 32)], message: `key longer than ${LIMITS.maxShortString} characters` });
          continue;
        }
        if (FORBIDDEN_KEYS.has(key)) {
          issues.push({ path: [...path, key], message: `key "${key}" is not allowed` });
          continue;
        }
        stack.push({ value: (current as Record<string, unknown>)[key], path: [...path, key] });
      }
      continue;
    }
    issues.push({ path, message: `not a JSON value (${typeof current})` });
  }
  return issues;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function reportJsonIssues(value: unknown, ctx: z.RefinementCtx, strings?: JsonStringLimits): void {
  for (const issue of inspectJsonValue(value, 10, strings)) {
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  }
}

/** A JSON value checked by {@link inspectJsonValue} with `strings`; add the metadata at the use. */
export function boundedJsonValue(strings?: JsonStringLimits) {
  return z
    .unknown()
    .superRefine((value, ctx) => reportJsonIssues(value, ctx, strings))
    .transform((value) => value as JsonValue);
}

/**
 * A JSON object (not an array, not null) checked by {@link inspectJsonValue} with `strings`; add
 * the metadata at the use.
 *
 * The check runs on the raw input, not on a rebuilt record: rebuilding an object by assignment
 * swallows a top-level `__proto__` key instead of reporting it. The JSON Schema shape is given
 * in the metadata because the runtime check is a refinement.
 */
export function boundedJsonObject(strings?: JsonStringLimits) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || !isPlainObject(value)) {
        ctx.addIssue({ code: 'custom', message: 'expected a JSON object' });
        return;
      }
      reportJsonIssues(value, ctx, strings);
    })
    .transform((value) => value as JsonObject);
}

/** Any JSON value, checked by {@link inspectJsonValue}. */
export const JsonValueSchema = boundedJsonValue().meta({
  id: 'JsonValue',
  description: 'Any JSON value; bounded depth and size, no __proto__/constructor/prototype keys.',
});

/** A JSON object (not an array, not null), checked by {@link inspectJsonValue}; see {@link boundedJsonObject}. */
export const JsonObjectSchema = boundedJsonObject()
  .meta({
    id: 'JsonObject',
    description: 'A JSON object; bounded depth and size, no __proto__/constructor/prototype keys.',
    type: 'object',
    propertyNames: { maxLength: LIMITS.maxShortString },
  });
