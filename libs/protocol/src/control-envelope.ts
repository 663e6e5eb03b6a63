/**
 * The structured control channel (docs/spec/control-envelope.md): instead of searching model output for `STEP_DONE`
 * or `REPLAN`, the model emits exactly one JSON object `{"control": "step_done" | "replan",
 * "reason"?: …}`. The legacy strings still work, with a warning that pushes toward the envelope;
 * how leniently both are read is a {@link ControlReadMode}.
 */
import { z } from 'zod';
import { IdSchema, LIMITS, TextSchema } from './primitives.js';

/** `step_done`: the current plan step is finished. `replan`: the plan must be revised. */
export const ControlKindSchema = z.enum(['step_done', 'replan']).meta({
  id: 'ControlKind',
  description: 'step_done: the current step is finished; replan: the plan must be revised.',
});
export type ControlKind = z.infer<typeof ControlKindSchema>;

/**
 * A control envelope as it is sent and stored: exactly `control` and `reason`. Reading model
 * output in `strict` mode holds the object to this shape (a tool-call JSON that happens to carry a
 * `control` key next to `tool` or `args` must not end a step); `seed` mode first prunes other keys,
 * as the original design's pydantic model ignores them. `reason` accepts `null` as "absent", as
 * that model (`str | None`) does (docs/spec/control-envelope.md#envelope).
 */
export const ControlEnvelopeSchema = z
  .strictObject({
    control: ControlKindSchema,
    reason: TextSchema.nullish(),
  })
  .meta({ id: 'ControlEnvelope', description: 'Structured control signal from model output: {"control", "reason"?}.' });
export type ControlEnvelope = z.infer<typeof ControlEnvelopeSchema>;

/**
 * Text longer than this is never parsed as an envelope. An envelope is one short object; the bound
 * (generous for a `reason` full of JSON escapes) keeps a huge model output away from `JSON.parse`.
 */
export const MAX_ENVELOPE_CHARS = 8 * LIMITS.maxText;

/**
 * How leniently model output is read (docs/spec/control-envelope.md#read-modes: the original design's reading against
 * the narrower one this product first shipped):
 * - `seed` (the default): the original design's rules. The trimmed text must be a single `{…}` object; its
 *   `control` and `reason` are validated and any other key is pruned (the original design validates with a
 *   pydantic model, which ignores unknown fields). A legacy `STEP_DONE` / `REPLAN` counts anywhere
 *   in the text as a word of its own ("…all green, STEP_DONE."), not inside a longer identifier
 *   such as `NOT_STEP_DONE`.
 * - `strict`: an envelope with any key besides `control` and `reason` is no envelope (a tool-call
 *   JSON that happens to carry `control` must not end a step), and a legacy token counts only on a
 *   line of its own, so that prose mentioning it is not a signal.
 * Both log the legacy warning and report the `control_signal` event the same way.
 */
export type ControlReadMode = 'seed' | 'strict';

/**
 * Text longer than this is never searched for a legacy token: model output is untrusted, and the
 * bound keeps one read linear in a known size. Longer output carries no control signal (the step
 * stays open and the iteration breaker still bounds the loop).
 */
export const MAX_CONTROL_OUTPUT_CHARS = 1024 * 1024;

/**
 * Parses model output as a control envelope, or returns `null`. Never throws, also not for
 * non-string input. Rules (docs/spec/control-envelope.md#reading-model-output): surrounding whitespace is ignored; only text that
 * starts with `{` and ends with `}` reaches `JSON.parse` (fast prune); the result must be a single
 * object whose `control` (and `reason`, when present) validate. In `strict` mode any other key
 * rejects the object; in `seed` mode other keys are dropped. Prose around the object, code fences,
 * arrays and nested envelopes are not envelopes in either mode.
 */
export function tryParseControlEnvelope(text: unknown, mode: ControlReadMode = 'seed'): ControlEnvelope | null {
  if (typeof text !== 'string') return null;
  const trimmed = text.trim();
  if (trimmed.length < 2 || trimmed.length > MAX_ENVELOPE_CHARS) return null;
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return null;
  }
  if (mode === 'seed') value = pruneToEnvelopeKeys(value);
  const parsed = ControlEnvelopeSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Keeps only `control` and `reason` of a plain object (own properties only); anything else passes through to fail validation. */
function pruneToEnvelopeKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const pruned: Record<string, unknown> = {};
  for (const key of ['control', 'reason'] as const) {
    if (Object.hasOwn(value, key)) pruned[key] = (value as Record<string, unknown>)[key];
  }
  return pruned;
}

const LEGACY_TOKENS: ReadonlyMap<string, ControlKind> = new Map([
  ['STEP_DONE', 'step_done'],
  ['REPLAN', 'replan'],
]);

/** Literal alternation: one left-to-right pass, no backtracking beyond the token length. */
const LEGACY_TOKEN_PATTERN = /STEP_DONE|REPLAN/g;

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function isLineBreak(code: number): boolean {
  return code === 10 || code === 13;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 11 || code === 12 || code === 0xa0 || code === 0xfeff;
}

/** Whether only blanks stand between `from` (exclusive, walking by `step`) and the line's end. */
function blankToLineEnd(text: string, from: number, step: 1 | -1): boolean {
  for (let i = from; i >= 0 && i < text.length; i += step) {
    const code = text.charCodeAt(i);
    if (isLineBreak(code)) return true;
    if (!isBlank(code)) return false;
  }
  return true;
}

/**
 * Detects the legacy control strings. In `seed` mode (the default) a token counts anywhere as a
 * word of its own: the characters next to it must not be ASCII letters, digits or `_`, so
 * `…tests pass, STEP_DONE.` counts and `NOT_STEP_DONE` does not. In `strict` mode it counts only
 * when a whole line, trimmed, equals `STEP_DONE` or `REPLAN` (docs/spec/control-envelope.md#why-an-envelope: a mention in a
 * sentence is then no signal). Variants such as `step_done`, `STEPDONE` or `步骤完成` never count
 * (docs/spec/control-envelope.md#why-an-envelope, false negatives: the envelope fixes those). When both tokens count the output is
 * contradictory and the result is `null`, leaving the fallback to the caller (docs/spec/control-envelope.md#reading-model-output: fail fast).
 * One pass over at most {@link MAX_CONTROL_OUTPUT_CHARS} characters; never throws.
 */
export function detectLegacyControl(text: unknown, mode: ControlReadMode = 'seed'): ControlKind | null {
  if (typeof text !== 'string' || text.length > MAX_CONTROL_OUTPUT_CHARS) return null;
  let found: ControlKind | null = null;
  const pattern = new RegExp(LEGACY_TOKEN_PATTERN.source, 'g');
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    const counts =
      mode === 'strict'
        ? blankToLineEnd(text, start - 1, -1) && blankToLineEnd(text, end, 1)
        : !(start > 0 && isWordChar(text.charCodeAt(start - 1))) && !(end < text.length && isWordChar(text.charCodeAt(end)));
    if (!counts) continue;
    const kind = LEGACY_TOKENS.get(match[0]);
    if (kind === undefined) continue;
    if (found !== null && found !== kind) return null;
    found = kind;
  }
  return found;
}

/** The outcome of reading model output for a control signal. */
export type ControlClassification =
  | { kind: 'structured'; envelope: ControlEnvelope }
  | { kind: 'legacy'; control: ControlKind; warning: string }
  | { kind: 'none' };

/** Options of {@link classifyControlOutput}. */
export interface ClassifyControlOptions {
  /** @defaultValue `'seed'` (see {@link ControlReadMode}) */
  readonly mode?: ControlReadMode;
}

/**
 * Classifies model output: a valid envelope wins; otherwise a legacy token is accepted with a
 * `warning` to log (docs/spec/control-envelope.md#legacy-fallback: backward compatible, but push the migration); otherwise there is
 * no control signal. `mode` picks the original design's lenient reading or the strict one. Never throws.
 */
export function classifyControlOutput(text: unknown, options: ClassifyControlOptions = {}): ControlClassification {
  const mode = options.mode ?? 'seed';
  const envelope = tryParseControlEnvelope(text, mode);
  if (envelope !== null) return { kind: 'structured', envelope };
  const control = detectLegacyControl(text, mode);
  if (control !== null) {
    const token = control === 'step_done' ? 'STEP_DONE' : 'REPLAN';
    return {
      kind: 'legacy',
      control,
      warning: `legacy control string ${token} detected; emit the JSON envelope {"control":"${control}"} instead`,
    };
  }
  return { kind: 'none' };
}

/** The format a control signal arrived in. */
export const ControlFormatSchema = z.enum(['structured', 'legacy']).meta({
  id: 'ControlFormat',
  description: 'structured: a JSON control envelope; legacy: a STEP_DONE/REPLAN line.',
});
export type ControlFormat = z.infer<typeof ControlFormatSchema>;

/**
 * The `control_signal` observability event (docs/spec/control-envelope.md#control-signal-event): emitted for every control signal
 * acted upon, with the format so dashboards can follow the migration away from legacy strings.
 */
export const ControlSignalEventSchema = z
  .strictObject({
    step_id: IdSchema.optional(),
    control: ControlKindSchema,
    reason: TextSchema.optional(),
    format: ControlFormatSchema,
  })
  .meta({ id: 'ControlSignalEvent', description: 'The control_signal observability event.' });
export type ControlSignalEvent = z.infer<typeof ControlSignalEventSchema>;

/** Builds the `control_signal` event for a classification, or `null` when there was no control signal. */
export function controlSignalEvent(classification: ControlClassification, stepId?: string): ControlSignalEvent | null {
  if (classification.kind === 'none') return null;
  const event: ControlSignalEvent =
    classification.kind === 'structured'
      ? { control: classification.envelope.control, format: 'structured' }
      : { control: classification.control, format: 'legacy' };
  if (classification.kind === 'structured' && typeof classification.envelope.reason === 'string') {
    event.reason = classification.envelope.reason;
  }
  if (stepId !== undefined) event.step_id = stepId;
  return event;
}
