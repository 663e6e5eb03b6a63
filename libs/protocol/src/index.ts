/**
 * @ahp/protocol: the wire protocol of AHP as zod schemas, inferred types and pure functions.
 * The public API is this list of named exports; import nothing from deeper paths.
 */

// --- primitives ---------------------------------------------------------------------------
export {
  FORBIDDEN_KEYS,
  IdSchema,
  JsonObjectSchema,
  JsonValueSchema,
  LIMITS,
  LongTextSchema,
  ShortStringSchema,
  TextSchema,
  TimestampSchema,
  UuidSchema,
  boundedArray,
  inspectJsonValue,
} from './primitives.js';
export type { Id, JsonObject, JsonValue, JsonValueIssue, Timestamp } from './primitives.js';

// --- domain: signals, decisions, triggers, envelope, plans, requests, inbox ---------------

// --- wire: errors, frames -------------------------------------------------------------------
