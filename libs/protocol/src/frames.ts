/**
 * Reading a frame off the wire, for either side: size first, then the JSON shape (depth, width,
 * count) before `JSON.parse` runs, then forbidden keys and nesting, then the frame's schema.
 * Never throws; every failure is a typed `AhpError` ready to send in an `error` frame, naming the
 * frame's `id` whenever it could be read. The schemas live in `client-frames.ts` and
 * `server-frames.ts`, the tables over frame types in `frame-types.ts`.
 */
import type { z } from 'zod';
import { makeError } from './errors.js';
import type { AhpError } from './errors.js';
import type { ClientFrame } from './client-frames.js';
import { FRAME_LIMITS } from './frame-primitives.js';
import { CLIENT_FRAME_SCHEMAS, SERVER_FRAME_SCHEMAS, isClientFrameType, isServerFrameType } from './frame-types.js';
import { formatPath, oneLine, reportIssues } from './issues.js';
import { FRAME_SHAPE_LIMITS, measureJsonShape, type JsonShape } from './json-shape-limits.js';
import { FORBIDDEN_KEYS, IdSchema } from './primitives.js';
import type { JsonObject } from './primitives.js';
import type { ServerFrame } from './server-frames.js';

/** One schema problem of a rejected frame, as listed in `E_INVALID_FRAME` details. */
export interface FrameIssue {
  /** Where, as a readable path: `request.payload.plan.steps[0].id`; empty for the frame itself. */
  path: string;
  message: string;
}

/**
 * Outcome of {@link parseClientFrame} / {@link parseServerFrame}. On failure, `error` is ready to
 * send in an `error` frame and `id` is the offending frame's id when it could be read (else
 * `null`), so the error reaches the request that caused it.
 */
export type FrameParseResult<F> = { ok: true; frame: F } | { ok: false; error: AhpError; id: string | null };

/**
 * UTF-8 length of `text` in bytes, as it goes on the wire, without allocating. A lone surrogate
 * counts 3 bytes (it is sent as U+FFFD).
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Whether `text` is longer than `maxBytes` in UTF-8; cheap bounds first, exact count only when needed. */
function exceedsBytes(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  return utf8ByteLength(text) > maxBytes;
}

/**
 * Deepest nesting a frame may have: the deepest frame structure (about ten levels down to a free-form
 * JSON value) plus `LIMITS.maxJsonDepth` inside it, with room to spare.
 */
const MAX_FRAME_DEPTH = FRAME_SHAPE_LIMITS.maxDepth;

/**
 * Finds keys in {@link FORBIDDEN_KEYS} anywhere in a parsed JSON value, and nesting beyond
 * {@link MAX_FRAME_DEPTH}. Iterative and depth-capped, so neither the stack nor the path copies
 * can grow with a hostile input's depth.
 */
function scanStructure(value: unknown, max: number): FrameIssue[] {
  const found: FrameIssue[] = [];
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value, path: [] }];
  for (let item = stack.pop(); item !== undefined && found.length < max; item = stack.pop()) {
    const { value: current, path } = item;
    if (current === null || typeof current !== 'object') continue;
    if (path.length >= MAX_FRAME_DEPTH) {
      found.push({ path: formatPath(path), message: `nested deeper than ${MAX_FRAME_DEPTH} levels` });
      continue;
    }
    // Children go on the stack last-first, so problems are reported in document order.
    const children: { value: unknown; path: PropertyKey[] }[] = [];
    if (Array.isArray(current)) {
      current.forEach((child: unknown, index) => children.push({ value: child, path: [...path, index] }));
    } else {
      for (const [key, child] of Object.entries(current)) {
        if (FORBIDDEN_KEYS.has(key)) {
          found.push({ path: formatPath([...path, key]), message: `key "${key}" is not allowed` });
          if (found.length >= max) return found;
        } else {
          children.push({ value: child, path: [...path, key] });
        }
      }
    }
    children.reverse();
    for (const child of children) stack.push(child);
  }
  return found;
}

function invalidFrame(type: string, issues: FrameIssue[], total: number, id: string | null): FrameParseResult<never> {
  const first = issues[0];
  const where = first === undefined ? '' : `${first.path === '' ? '' : `${first.path}: `}${first.message}`;
  const more = total > 1 ? ` (and ${total - 1} more issue${total > 2 ? 's' : ''})` : '';
  const details: JsonObject = {
    type,
    issue_count: total,
    issues: issues.map((issue) => ({ path: issue.path, message: issue.message })),
  };
  return { ok: false, id, error: makeError('E_INVALID_FRAME', oneLine(`invalid ${type} frame: ${where}${more}`, 512), details) };
}

type Direction = 'client' | 'server';

/**
 * The refusal of a frame whose shape crossed {@link FRAME_SHAPE_LIMITS}. It names the request
 * when the scanner read a valid `id` before the violation, and answers `E_UNKNOWN_TYPE` when it
 * read a `type` that is not one (as a parsed frame would); otherwise `E_INVALID_FRAME`.
 */
function shapeRefusal(shape: Extract<JsonShape, { ok: false }>, direction: Direction, schemas: Readonly<Record<string, z.ZodType>>): FrameParseResult<never> {
  const id = shape.id !== undefined && IdSchema.safeParse(shape.id).success ? shape.id : null;
  if (shape.type !== undefined && !Object.hasOwn(schemas, shape.type)) return { ok: false, id, error: unknownType(shape.type, direction, schemas) };
  const issue: FrameIssue = { path: '', message: `${shape.message} (at character ${shape.offset}); refused before parsing` };
  const details: JsonObject = { issue_count: 1, issues: [{ path: issue.path, message: issue.message }] };
  if (shape.type !== undefined) details['type'] = shape.type;
  return { ok: false, id, error: makeError('E_INVALID_FRAME', oneLine(`invalid ${shape.type ?? direction} frame: ${issue.message}`, 512), details) };
}

function parseFrame<F>(
  text: string,
  maxBytes: number | undefined,
  direction: Direction,
  schemas: Readonly<Record<string, z.ZodType>>,
  shape?: JsonShape,
): FrameParseResult<F> {
  try {
    if (typeof text !== 'string') {
      return { ok: false, id: null, error: makeError('E_BAD_FRAME', 'frame must be a text message containing JSON') };
    }
    if (maxBytes !== undefined && exceedsBytes(text, maxBytes)) {
      return {
        ok: false,
        id: null,
        error: makeError('E_FRAME_TOO_LARGE', `frame is larger than ${maxBytes} bytes`, { max_frame_bytes: maxBytes }),
      };
    }
    // The shape first, in one cheap pass: JSON.parse never sees a frame nested too deep or too
    // wide, whose parsing alone could cost a hundred times what reading it does.
    const measured = shape ?? measureJsonShape(text, FRAME_SHAPE_LIMITS);
    if (!measured.ok) return shapeRefusal(measured, direction, schemas);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, id: null, error: makeError('E_BAD_FRAME', 'frame is not valid JSON') };
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
      return { ok: false, id: null, error: makeError('E_BAD_FRAME', `frame must be a JSON object, got ${got}`) };
    }
    const record = value as Record<string, unknown>;
    const rawId = Object.hasOwn(record, 'id') ? record['id'] : undefined;
    const id = typeof rawId === 'string' && IdSchema.safeParse(rawId).success ? rawId : null;

    const type = Object.hasOwn(record, 'type') ? record['type'] : undefined;
    const schema = typeof type === 'string' && Object.hasOwn(schemas, type) ? schemas[type] : undefined;
    if (typeof type !== 'string' || schema === undefined) {
      return { ok: false, id, error: unknownType(type, direction, schemas) };
    }

    const structural = scanStructure(record, FRAME_LIMITS.maxReportedIssues);
    if (structural.length > 0) return invalidFrame(type, structural, structural.length, id);

    const result = schema.safeParse(record);
    if (result.success) return { ok: true, frame: result.data as F };
    return invalidFrame(type, reportIssues(result.error.issues, { max: FRAME_LIMITS.maxReportedIssues }), result.error.issues.length, id);
  } catch {
    return { ok: false, id: null, error: makeError('E_INTERNAL', 'the frame could not be checked') };
  }
}

function unknownType(type: unknown, direction: Direction, schemas: Readonly<Record<string, z.ZodType>>): AhpError {
  const expected = Object.keys(schemas);
  if (type === undefined) {
    return makeError('E_UNKNOWN_TYPE', 'frame has no "type"', { expected });
  }
  if (typeof type !== 'string') {
    return makeError('E_UNKNOWN_TYPE', `frame "type" must be a string, got ${type === null ? 'null' : typeof type}`, { expected });
  }
  const shown = oneLine(type, 64);
  const other = direction === 'client' ? isServerFrameType(type) : isClientFrameType(type);
  const message = other
    ? `"${shown}" is a ${direction === 'client' ? 'server' : 'client'} frame type; a ${direction} cannot send it`
    : `unknown frame type "${shown}"`;
  return makeError('E_UNKNOWN_TYPE', message, { type: shown, expected });
}

/**
 * Reads one text message from a client, as the gateway must: never throws, and classifies every
 * failure so the gateway can answer it with an `error` frame and keep the connection.
 *
 * Checks, in order: size over `maxBytes` (UTF-8) → `E_FRAME_TOO_LARGE`; a shape over
 * {@link FRAME_SHAPE_LIMITS} (nesting deeper than 64, an object with more than 1,000 keys, an
 * array with more than 100,000 elements, more than 200,000 values), found by {@link measureJsonShape} before `JSON.parse` runs →
 * `E_INVALID_FRAME` (or `E_UNKNOWN_TYPE` when the `type` read so far is not a client type); not
 * JSON or not a JSON object → `E_BAD_FRAME`; `type` missing or not a client type → `E_UNKNOWN_TYPE`; a
 * `__proto__` / `constructor` / `prototype` key anywhere, nesting deeper than 64 levels, or any
 * schema failure →
 * `E_INVALID_FRAME`, with at most ten issues (readable paths) in `details.issues`. The frame's
 * `id` is returned whenever it is a valid id, even if the rest of the frame is not.
 *
 * @param maxBytes - largest accepted frame in UTF-8 bytes. @defaultValue `FRAME_LIMITS.defaultMaxFrameBytes`
 * @param shape - `measureJsonShape(text)` when the caller already took it (the gateway does, to
 *   meter the frame before parsing it); measured here otherwise.
 */
export function parseClientFrame(
  text: string,
  maxBytes: number = FRAME_LIMITS.defaultMaxFrameBytes,
  shape?: JsonShape,
): FrameParseResult<ClientFrame> {
  return parseFrame<ClientFrame>(text, maxBytes, 'client', CLIENT_FRAME_SCHEMAS, shape);
}

/**
 * Reads one text message from the gateway, as an SDK must: the same classification as
 * {@link parseClientFrame}, against the server frame types. A client that gets a failure should
 * log it and, when `id` is set, fail that pending request; it should not answer the gateway.
 *
 * @param maxBytes - optional size limit in UTF-8 bytes. @defaultValue no limit
 */
export function parseServerFrame(text: string, maxBytes?: number): FrameParseResult<ServerFrame> {
  return parseFrame<ServerFrame>(text, maxBytes, 'server', SERVER_FRAME_SCHEMAS);
}
