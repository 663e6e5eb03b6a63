/**
 * The structured control channel of seed 000: instead of searching model output for `STEP_DONE`
 * or `REPLAN`, the model emits exactly one JSON object `{"control": "step_done" | "replan",
 * "reason"?: …}`. The legacy strings still work, but narrowly (a line of their own) and with a
 * warning that pushes toward the envelope.
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
 * A control envelope. Strict: any key besides `control` and `reason` means the object is not an
 * envelope. The structured channel exists to be unmistakable; a tool-call JSON that happens to
 * carry a `control` key next to `tool` or `args` must not end a step. `reason` accepts `null` as
 * "absent", as the seed's model (`str | None`) does.
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
 * Parses model output as a control envelope, or returns `null`. Never throws, also not for
 * non-string input. Rules (seed 000 §3.2): surrounding whitespace is ignored; only text that
 * starts with `{` and ends with `}` reaches `JSON.parse` (fast prune); the result must be a single
 * object that validates as {@link ControlEnvelopeSchema}. Prose around the object, code fences,
 * arrays and nested envelopes are not envelopes.
 */
export function tryParseControlEnvelope(text: unknown): ControlEnvelope | null {
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
  const parsed = ControlEnvelopeSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

const LEGACY_TOKENS: ReadonlyMap<string, ControlKind> = new Map([
  ['STEP_DONE', 'step_done'],
  ['REPLAN', 'replan'],
]);

/**
 * Detects the legacy control strings. A token counts only when a whole line, trimmed, equals
 * `STEP_DONE` or `REPLAN`: a mention inside a sentence ("I will say STEP_DONE later") is not a
 * signal (seed 000 §1.2, false positive), and neither are variants such as `step_done`,
 * `STEPDONE` or `步骤完成` (§1.2, false negative: those are what the structured envelope fixes).
 * When both tokens stand on lines of their own the output is contradictory and the result is
 * `null`, leaving the fallback to the caller as seed §2.1 (fail fast) asks. Never throws.
 */
export function detectLegacyControl(text: unknown): ControlKind | null {
  if (typeof text !== 'string') return null;
  let found: ControlKind | null = null;
  for (const line of text.split(/\r\n|\r|\n/)) {
    const kind = LEGACY_TOKENS.get(line.trim());
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

/**
 * Classifies model output: a valid envelope wins; otherwise a legacy token on its own line is
 * accepted with a `warning` to log (seed §2.1: backward compatible, but push the migration);
 * otherwise there is no control signal. Never throws.
 */
export function classifyControlOutput(text: unknown): ControlClassification {
  const envelope = tryParseControlEnvelope(text);
  if (envelope !== null) return { kind: 'structured', envelope };
  const control = detectLegacyControl(text);
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
 * The `control_signal` observability event (seed 000 §4): emitted for every control signal
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
