/**
 * A bounded single-pass look at the shape of JSON text, before anyone runs `JSON.parse` on it.
 *
 * Why: `JSON.parse` costs more per byte for some shapes than for others. 900 KB of `[[[[…]]]]`
 * nested 450,000 levels deep took about 120 ms to parse (and then was refused for its depth); 900
 * KB of small numbers in arrays parses fast but makes about 450,000 values for the schemas to walk
 * (about 140 ms). A peer that sends such frames stalls every other connection on the process. This
 * scanner reads each character once and allocates nothing that grows with the input, so refusing
 * a hostile frame costs about as much as reading it (about 1 ms per MB, see tools/bench).
 *
 * It does not validate JSON. For valid JSON its verdict is exact (depth, entries per container and
 * values are counted as `JSON.parse` would build them, except that a repeated key counts every
 * time it is written); for invalid JSON its counts are a best effort and `JSON.parse` refuses the
 * text afterwards anyway. Pure: no I/O, no clock.
 */

/** What the scanner enforces. */
export interface JsonShapeLimits {
  /** Deepest nesting of objects and arrays; the outermost container is depth 1. */
  maxDepth: number;
  /** Most keys of one object (each time one is written, repeats included). */
  maxKeys: number;
  /** Most elements of one array. */
  maxElements: number;
  /** Most JSON values in the whole text (every object, array, string, number, `true`, `false`, `null`; keys excluded). */
  maxValues: number;
}

/**
 * Limits of a whole client or server frame, checked before parsing and never stricter than the
 * schemas: 64 levels (the frame's own bound; 32 inside a free-form value), 1,000 keys per object
 * (`LIMITS.maxObjectKeys`; strict objects have far fewer), 100,000 elements per array (the
 * longest any schema allows: a `stop` context's `changed` files) and 200,000 values in all — more
 * than a valid frame of 1 MiB can usefully hold, and few enough that validating them stays in the
 * tens of milliseconds.
 */
export const FRAME_SHAPE_LIMITS: Readonly<JsonShapeLimits> = Object.freeze({ maxDepth: 64, maxKeys: 1_000, maxElements: 100_000, maxValues: 200_000 });

/**
 * The two top-level keys whose short string values a scan reports as `id` and `type`: what names
 * the message and what says its kind, so that a refusal can still answer in kind. A frame's are
 * `id` and `type`; another format names its own (a Claude Code hook body: `session_id` and
 * `hook_event_name`).
 */
export interface CapturedKeys {
  id: string;
  type: string;
}

/** The keys a protocol frame is named by. */
export const FRAME_CAPTURED_KEYS: Readonly<CapturedKeys> = Object.freeze({ id: 'id', type: 'type' });

/** Which limit a text crossed. */
export type JsonShapeViolation = 'depth' | 'entries' | 'values';

/**
 * The scanner's verdict. `values` counts the values and `depth` is the deepest nesting, both up
 * to the first violation when there is one. `id` and `type` are the string values of the
 * outermost object's {@link CapturedKeys} (`"id"` and `"type"` for a frame) when they are at most
 * 128 characters without an escape sequence (so that a refusal can still name the request it answers; the last one wins, as
 * in `JSON.parse`); `undefined` otherwise.
 */
export type JsonShape =
  | { ok: true; values: number; depth: number; id: string | undefined; type: string | undefined }
  | {
      ok: false;
      violation: JsonShapeViolation;
      /** Offset (UTF-16 code units) of the character that crossed the limit. */
      offset: number;
      /** Readable reason, e.g. `nested deeper than 64 levels`. */
      message: string;
      values: number;
      depth: number;
      id: string | undefined;
      type: string | undefined;
    };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** Longest `id` / `type` value captured for a refusal; longer ones are not valid ids anyway. */
const MAX_CAPTURED = 128;

/**
 * Where the string whose content starts at `start` ends: the index of its closing quote, or the
 * text's length when it is unterminated. Jumps from quote to quote with the engine's own search (a
 * long string costs next to nothing); a quote preceded by an odd number of backslashes is escaped.
 */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    for (let k = quote - 1; k >= start && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * Measures the shape of JSON `text` against `limits` in one pass. Never throws for any string.
 *
 * After the first limit crossed nothing more is counted; the rest of the text is only skimmed
 * for the outermost `id` and `type` (no allocation, no per-container state), so that a refusal
 * names the request even when the offending value came first.
 *
 * @param limits - @defaultValue {@link FRAME_SHAPE_LIMITS}
 * @param keys - which top-level keys to report as `id` and `type`; @defaultValue {@link FRAME_CAPTURED_KEYS}
 */
export function measureJsonShape(
  text: string,
  limits: Readonly<JsonShapeLimits> = FRAME_SHAPE_LIMITS,
  keys: Readonly<CapturedKeys> = FRAME_CAPTURED_KEYS,
): JsonShape {
  const maxDepth = Math.max(0, Math.floor(limits.maxDepth));
  // Per open container: whether it is an object, and how many entries it has so far. Sized by the
  // depth limit, never by the input: deeper levels are only ever skimmed after the violation.
  const isObject = new Uint8Array(maxDepth + 1);
  const entries = new Uint32Array(maxDepth + 1);
  let depth = 0;
  let deepest = 0;
  let values = 0;
  let expectKey = false;
  let inPrimitive = false;
  // The key just read in the outermost object, when it is one of the captured keys.
  let topKey: 'id' | 'type' | undefined;
  let id: string | undefined;
  let type: string | undefined;
  let violation: { violation: JsonShapeViolation; offset: number; message: string } | undefined;

  /** One more entry in the container at `level`; its count after. */
  const bump = (level: number): number => (entries[level] = (entries[level] ?? 0) + 1);

  const cross = (kind: JsonShapeViolation, offset: number, message: string): void => {
    violation = { violation: kind, offset, message };
  };

  /** Counts a value starting at `offset`: one more value in the text, one more element when its container is an array. */
  const countValue = (offset: number): void => {
    if (violation !== undefined) return;
    values += 1;
    if (values > limits.maxValues) cross('values', offset, `more than ${limits.maxValues} values`);
    else if (depth > 0 && isObject[depth] === 0 && bump(depth) > limits.maxElements) {
      cross('entries', offset, `array with more than ${limits.maxElements} elements`);
    }
  };

  /** The value of a captured key is not a string: the frame has no readable id (or type) then. */
  const forgetTopValue = (): void => {
    if (topKey === 'id') id = undefined;
    else if (topKey === 'type') type = undefined;
    topKey = undefined;
  };

  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      inPrimitive = false;
      const key = expectKey && depth > 0 && depth <= maxDepth && isObject[depth] === 1;
      const start = i + 1;
      i = stringEnd(text, start);
      if (key) {
        expectKey = false;
        if (violation === undefined && bump(depth) > limits.maxKeys) cross('entries', start - 1, `object with more than ${limits.maxKeys} keys`);
        const length = i - start;
        topKey =
          depth !== 1
            ? undefined
            : length === keys.id.length && text.startsWith(keys.id, start)
              ? 'id'
              : length === keys.type.length && text.startsWith(keys.type, start)
                ? 'type'
                : undefined;
        continue;
      }
      countValue(start - 1);
      if (topKey !== undefined) {
        const raw = i - start <= MAX_CAPTURED ? text.slice(start, i) : undefined;
        const value = raw !== undefined && !raw.includes('\\') ? raw : undefined;
        if (topKey === 'id') id = value;
        else type = value;
        topKey = undefined;
      }
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      inPrimitive = false;
      countValue(i);
      forgetTopValue();
      depth += 1;
      if (depth > maxDepth) {
        if (violation === undefined) {
          deepest = depth;
          cross('depth', i, `nested deeper than ${maxDepth} levels`);
        }
        continue;
      }
      if (violation === undefined && depth > deepest) deepest = depth;
      isObject[depth] = code === OPEN_OBJECT ? 1 : 0;
      entries[depth] = 0;
      expectKey = code === OPEN_OBJECT;
      continue;
    }
    if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      inPrimitive = false;
      if (depth > 0) depth -= 1;
      expectKey = false;
      continue;
    }
    if (code === COMMA) {
      inPrimitive = false;
      expectKey = depth > 0 && depth <= maxDepth && isObject[depth] === 1;
      continue;
    }
    if (code === COLON || isWhitespace(code)) {
      inPrimitive = false;
      continue;
    }
    // Anything else starts or continues a number, `true`, `false` or `null`.
    if (!inPrimitive) {
      inPrimitive = true;
      countValue(i);
      forgetTopValue();
    }
  }
  if (violation !== undefined) return { ok: false, ...violation, values, depth: deepest, id, type };
  return { ok: true, values, depth: deepest, id, type };
}
