/**
 * A bounded look at a Claude Code hook body before it is parsed: one pass over the bytes, no
 * allocation per value, so a hostile body costs the gateway a linear scan and no more.
 *
 * Two uses: refuse shapes the hook context limits would refuse anyway (nesting, keys, elements)
 * before `JSON.parse` builds them — a megabyte nested 500,000 levels deep costs ~80 ms to parse
 * and more to walk — and find `hook_event_name` in a body the gateway will not parse at all
 * (over the size limit, over the rate limit), so that even that refusal is answered in the form
 * Claude Code obeys for the event. Claude Code writes the common fields, `hook_event_name` among
 * them, before the tool input, so they sit in the first few kilobytes.
 *
 * The scan does not validate JSON; `JSON.parse` does that afterwards. On bytes that are not JSON
 * it may report nothing or anything, never more than it read.
 */
import { ClaudeCodeEventSchema, LIMITS, type ClaudeCodeEvent } from '@ahp/protocol';

/** Shape limits a hook body must keep to be parsed. */
export interface HookBodyShapeLimits {
  /** Deepest nesting; the body itself is depth 1. */
  readonly maxDepth: number;
  /** Most keys of any one object. */
  readonly maxObjectKeys: number;
  /** Most elements of any one array. */
  readonly maxArrayLength: number;
}

/**
 * The hook context limits (`LIMITS` in libs/protocol), which the scan must never be stricter
 * than: a tool input at depth d of the body is at depth d + 1 of the hook context, so anything the
 * scan refuses the context check would refuse too.
 */
export const HOOK_BODY_SHAPE_LIMITS: HookBodyShapeLimits = Object.freeze({
  maxDepth: LIMITS.maxJsonDepth,
  maxObjectKeys: LIMITS.maxObjectKeys,
  maxArrayLength: LIMITS.maxArrayLength,
});

/** What {@link scanHookBody} found. */
export interface HookBodyScan {
  /**
   * The top-level `hook_event_name`, when the bytes hold it as a plain string naming a Claude Code
   * event AHP maps; undefined when absent, cut off, escaped, unknown, or given twice differently.
   */
  readonly event: ClaudeCodeEvent | undefined;
  /** The first shape limit the bytes break, in words (`nested deeper than 32 levels`); undefined when none. */
  readonly problem: string | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const EVENT_KEY = Buffer.from('hook_event_name', 'latin1');

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function equalsAt(bytes: Uint8Array, start: number, end: number, expected: Uint8Array): boolean {
  if (end - start !== expected.length) return false;
  for (let index = 0; index < expected.length; index++) if (bytes[start + index] !== expected[index]) return false;
  return true;
}

/**
 * Scans `bytes` (UTF-8; a prefix of a body is fine) for the shape problems of {@link HookBodyShapeLimits}
 * and the top-level `hook_event_name`. Always reads to the end, so that a second, different
 * `hook_event_name` is noticed (JSON.parse would keep the last one). Structural characters are ASCII and never occur inside a multi-byte UTF-8 sequence, so bytes
 * are scanned as they are.
 */
export function scanHookBody(bytes: Uint8Array, limits: HookBodyShapeLimits = HOOK_BODY_SHAPE_LIMITS): HookBodyScan {
  const { maxDepth } = limits;
  // Per open container up to maxDepth: whether it is an object, and its commas so far.
  const isObject = new Uint8Array(maxDepth + 1);
  const commas = new Uint32Array(maxDepth + 1);
  let depth = 0;
  let problem: string | undefined;
  let event: string | undefined;
  let conflicting = false;
  // Top-level object only: the next string is a key; the last key was hook_event_name; its value comes next.
  let expectKey = false;
  let keyIsEvent = false;
  let valueIsEvent = false;

  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index] ?? 0;
    if (byte === QUOTE) {
      let end = index + 1;
      let escaped = false;
      while (end < bytes.length && bytes[end] !== QUOTE) {
        if (bytes[end] === BACKSLASH) {
          escaped = true;
          end++;
        }
        end++;
      }
      if (end >= bytes.length) break; // cut off inside a string: nothing more to learn
      if (depth === 1 && isObject[1] === 1) {
        if (expectKey) {
          keyIsEvent = !escaped && equalsAt(bytes, index + 1, end, EVENT_KEY);
          expectKey = false;
        } else if (valueIsEvent) {
          const name = escaped ? '' : Buffer.from(bytes.buffer, bytes.byteOffset + index + 1, end - index - 1).toString('latin1');
          if (event !== undefined && event !== name) conflicting = true;
          event = name;
          valueIsEvent = false;
        }
      }
      index = end;
      continue;
    }
    switch (byte) {
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        valueIsEvent = false;
        depth++;
        if (depth > maxDepth) {
          problem ??= `nested deeper than ${maxDepth} levels`;
        } else {
          isObject[depth] = byte === OPEN_OBJECT ? 1 : 0;
          commas[depth] = 0;
          if (depth === 1) expectKey = byte === OPEN_OBJECT;
        }
        break;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        if (depth > 0) depth--;
        break;
      case COMMA:
        if (depth >= 1 && depth <= maxDepth) {
          const count = (commas[depth] ?? 0) + 1; // elements = commas + 1
          commas[depth] = count;
          if (isObject[depth] === 1) {
            if (count >= limits.maxObjectKeys) problem ??= `an object with more than ${limits.maxObjectKeys} keys`;
            if (depth === 1) expectKey = true;
          } else if (count >= limits.maxArrayLength) {
            problem ??= `an array with more than ${limits.maxArrayLength} elements`;
          }
        }
        valueIsEvent = false;
        break;
      case COLON:
        if (depth === 1 && keyIsEvent) valueIsEvent = true;
        keyIsEvent = false;
        break;
      default:
        // A number or literal where the event's value should be: not a string, so not an event.
        if (valueIsEvent && !isWhitespace(byte)) valueIsEvent = false;
    }
  }
  const known = conflicting || event === undefined ? undefined : ClaudeCodeEventSchema.safeParse(event);
  return { event: known?.success === true ? known.data : undefined, problem };
}
