/**
 * Property-based fuzzing of `parseClientFrame`, the function every frame from an agent goes
 * through: valid frames of every type parse; valid frames broken in every way a hostile or buggy
 * peer could break them are refused with the right typed code (and the frame's id whenever it is
 * still readable); nothing ever throws; nothing reaches `Object.prototype`.
 *
 * The arbitraries and mutations live in `test/frame-arbitraries.ts`.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClientFrame } from './client-frames.js';
import { FRAME_LIMITS } from './frame-primitives.js';
import { CLIENT_FRAME_TYPES } from './frame-types.js';
import { parseClientFrame, type FrameParseResult } from './frames.js';
import { ErrorFrameSchema } from './server-frames.js';
import {
  VALID_FRAME_ARBS,
  mutatedFrameArb,
  notAnObjectArb,
  validFrameArb,
  type Mutation,
} from '../test/frame-arbitraries.js';

const RUNS = { numRuns: 300 };
const PARSE_CODES = new Set(['E_BAD_FRAME', 'E_UNKNOWN_TYPE', 'E_INVALID_FRAME', 'E_FRAME_TOO_LARGE']);

/** Parses, failing the property (with the input) if anything escapes as an exception. */
function parse(text: string, maxBytes?: number): FrameParseResult<ClientFrame> {
  try {
    return parseClientFrame(text, maxBytes);
  } catch (error) {
    throw new Error(`parseClientFrame threw for ${JSON.stringify(text.slice(0, 200))}: ${String(error)}`, { cause: error });
  }
}

/** A refusal must be sendable as it is: a valid `error` frame with a parse code. */
function expectTypedRefusal(result: FrameParseResult<ClientFrame>): asserts result is Extract<FrameParseResult<ClientFrame>, { ok: false }> {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(PARSE_CODES.has(result.error.code), result.error.code).toBe(true);
  expect(ErrorFrameSchema.safeParse({ type: 'error', id: result.id, error: result.error }).success).toBe(true);
}

function prototypeIsClean(): boolean {
  return Object.getOwnPropertyNames(Object.prototype).every((name) => typeof (Object.prototype as Record<string, unknown>)[name] === 'function' || name === '__proto__')
    && (({}) as Record<string, unknown>)['polluted'] === undefined
    && (({}) as Record<string, unknown>)['isAdmin'] === undefined;
}

afterAll(() => {
  expect(prototypeIsClean()).toBe(true);
});

describe('valid frames (fuzzed)', () => {
  it.each(CLIENT_FRAME_TYPES)('parses every generated %s frame, and its parsed form again unchanged', (type) => {
    fc.assert(
      fc.property(VALID_FRAME_ARBS[type], (frame) => {
        const result = parse(JSON.stringify(frame));
        if (!result.ok) throw new Error(`valid ${type} refused: ${result.error.message}\n${JSON.stringify(frame).slice(0, 500)}`);
        expect(result.frame.type).toBe(type);
        expect(result.frame.id).toBe(frame['id']);
        const again = parse(JSON.stringify(result.frame));
        expect(again.ok && again.frame).toEqual(result.frame);
      }),
      { numRuns: 150 },
    );
  });
});

describe('mutated frames (fuzzed)', () => {
  it('refuses every mutation with its typed code and the id when it is intact', () => {
    fc.assert(
      fc.property(mutatedFrameArb, (mutation: Mutation) => {
        const result = parse(mutation.text);
        expectTypedRefusal(result);
        expect({ kind: mutation.kind, code: result.error.code, id: result.id }).toEqual({ kind: mutation.kind, code: mutation.expected, id: mutation.id });
        // The report stays bounded whatever the frame held.
        expect(JSON.stringify(result.error).length).toBeLessThan(8 * 1024);
        expect(prototypeIsClean()).toBe(true);
      }),
      RUNS,
    );
  });

  it('refuses text that is not a JSON object with E_BAD_FRAME and no id', () => {
    fc.assert(
      fc.property(notAnObjectArb, (mutation) => {
        const result = parse(mutation.text);
        expectTypedRefusal(result);
        expect([result.error.code, result.id]).toEqual(['E_BAD_FRAME', null]);
      }),
      RUNS,
    );
  });

  it('refuses a frame over the byte limit before reading it', () => {
    fc.assert(
      fc.property(validFrameArb, fc.integer({ min: 1024, max: 8192 }), (frame, maxBytes) => {
        const padded = JSON.stringify({ ...frame, padding: 'é'.repeat(maxBytes) });
        const result = parse(padded, maxBytes);
        expectTypedRefusal(result);
        expect(result.error).toMatchObject({ code: 'E_FRAME_TOO_LARGE', details: { max_frame_bytes: maxBytes } });
      }),
      { numRuns: 100 },
    );
  });

  it('never throws and always answers with a typed result, whatever the text', () => {
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)),
      fc.anything({ maxDepth: 4, withNullPrototype: true }).map((value) => {
        try {
          return JSON.stringify(value) ?? 'undefined';
        } catch {
          return String(value);
        }
      }),
    );
    fc.assert(
      fc.property(anyText, fc.constantFrom(undefined, 64, FRAME_LIMITS.defaultMaxFrameBytes), (text, maxBytes) => {
        const result = parse(text, maxBytes);
        if (!result.ok) expectTypedRefusal(result);
      }),
      { numRuns: 500 },
    );
    expect(prototypeIsClean()).toBe(true);
  });
});
