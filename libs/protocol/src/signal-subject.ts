/**
 * What a signal acted on, in a few hundred bytes: the tool and its input, what else the hook was
 * about (the user's prompt, the issue, the task), the signal's message and suggestions, and a
 * control's changes as before → after. Written into every signal-log entry (field `subject`), so
 * that the console's timeline and signal rows, the operator API and `ahp log export` can say what
 * was blocked or changed without the hook's drill-down (which expires far sooner than the log).
 *
 * Small on purpose: one is written per signal and the log keeps 100 000 entries by default. Keys
 * are one or two letters, and every text is cut so that the whole subject, as JSON, never exceeds
 * {@link MAX_SIGNAL_SUBJECT_BYTES} bytes of UTF-8 whatever the input (huge strings, many
 * modifications, deep objects, characters JSON escapes). Everything in it is redacted
 * ({@link redactFreeText}) before it is cut, so a credential cannot survive as a cut-off prefix.
 *
 * Most of it is the agent's own text: consumers show it as text, never as markup.
 */
import { z } from 'zod';
import type { Modification, SignalPayload } from './decision.js';
import type { JsonObject, JsonValue } from './primitives.js';
import { REDACTED, isSecretKey, redactFreeText, redactText } from './redact.js';
import type { HookTrigger } from './trigger.js';

/** The most one subject takes, as JSON in UTF-8 bytes; {@link signalSubject} never builds a larger one. */
export const MAX_SIGNAL_SUBJECT_BYTES = 1280;

/**
 * The most each part takes, in bytes of its JSON-escaped UTF-8 text (so also in characters, as
 * every character takes at least one byte). Their sum, with the keys and punctuation, stays under
 * {@link MAX_SIGNAL_SUBJECT_BYTES}: at most about 1,200 bytes, as a signal has either suggestions
 * or changes, never both (signal-subject.spec.ts checks it).
 */
export const SIGNAL_SUBJECT_CAPS = Object.freeze({
  tool: 64,
  input: 240,
  what: 120,
  message: 240,
  suggestion: 80,
  suggestions: 3,
  target: 40,
  value: 56,
  changes: 3,
});

/** What a cut text ends with. */
export const CUT_MARK = '…';

const capped = (max: number) => z.string().max(max);

/** One change of a control: `[target, before, after]`, values as (cut) JSON text; before `null` when the input did not have the field. */
export const SignalSubjectChangeSchema = z.tuple([capped(SIGNAL_SUBJECT_CAPS.target), capped(SIGNAL_SUBJECT_CAPS.value).nullable(), capped(SIGNAL_SUBJECT_CAPS.value)]);
export type SignalSubjectChange = z.infer<typeof SignalSubjectChangeSchema>;

/**
 * A signal's subject (see the module comment). Every field is optional; texts are cut (ending in
 * `…`) and redacted.
 *
 * - `t`: the tool's name (`tool.name` of a tool hook's context).
 * - `i`: the tool's input (`tool.input`) as JSON text.
 * - `w`: what else the hook was about: the user's prompt (`user-prompt-submit`), the issue (`id title`), the task's summary.
 * - `m`: the signal's message: a block's reason, a prompt's message, an aid's context, a control's first reason.
 * - `s`: a prompt's or an aid's suggestions, the first {@link SIGNAL_SUBJECT_CAPS}.suggestions; `sn` the total when there were more.
 * - `c`: a control's changes as `[target, before, after]`, the first {@link SIGNAL_SUBJECT_CAPS}.changes; `cn` the total when there were more.
 *   `before` is the value in the hook's tool input (`null`: not there); when the hook's context is
 *   not known (a decision the gateway's failure policy stored), the oracle's `original`.
 */
export const SignalSubjectSchema = z
  .strictObject({
    t: capped(SIGNAL_SUBJECT_CAPS.tool).optional(),
    i: capped(SIGNAL_SUBJECT_CAPS.input).optional(),
    w: capped(SIGNAL_SUBJECT_CAPS.what).optional(),
    m: capped(SIGNAL_SUBJECT_CAPS.message).optional(),
    s: z.array(capped(SIGNAL_SUBJECT_CAPS.suggestion)).max(SIGNAL_SUBJECT_CAPS.suggestions).optional(),
    sn: z.int().positive().max(1_000_000).optional(),
    c: z.array(SignalSubjectChangeSchema).max(SIGNAL_SUBJECT_CAPS.changes).optional(),
    cn: z.int().positive().max(1_000_000).optional(),
  })
  .meta({
    id: 'SignalSubject',
    description: 'What a signal acted on, compact: t tool, i input (JSON text), w prompt/issue/task, m message, s suggestions, c changes [target, before, after]; redacted, cut.',
  });
export type SignalSubject = z.infer<typeof SignalSubjectSchema>;

/** Bytes a code point takes inside a JSON string in UTF-8 (JSON.stringify's escapes). */
function jsonBytes(codePoint: number): number {
  if (codePoint === 0x22 || codePoint === 0x5c) return 2;
  if (codePoint < 0x20) return codePoint === 8 || codePoint === 9 || codePoint === 10 || codePoint === 12 || codePoint === 13 ? 2 : 6;
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  // A lone surrogate is written as \udXXX.
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return 6;
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * `text`, cut so that it takes at most `maxBytes` bytes as a JSON string's content in UTF-8; a cut
 * text ends with {@link CUT_MARK}, and never splits a surrogate pair. Only the first `maxBytes`
 * characters are ever looked at (each takes at least a byte), so a huge text costs no more.
 */
export function cutJsonText(text: string, maxBytes: number): string {
  if (text.length * 6 <= maxBytes) return text;
  const room = maxBytes - 3; // the cut mark's bytes
  let used = 0;
  let fitEnd = -1; // where the text must end to leave room for the mark
  let index = 0;
  for (const char of text.length > maxBytes + 1 ? text.slice(0, maxBytes + 1) : text) {
    const bytes = jsonBytes(char.codePointAt(0) ?? 0);
    if (used + bytes > room && fitEnd < 0) fitEnd = index;
    used += bytes;
    if (used > maxBytes) break;
    index += char.length;
  }
  if (used <= maxBytes && index >= text.length) return text;
  return `${text.slice(0, fitEnd < 0 ? index : fitEnd)}${CUT_MARK}`;
}

/** Free text for a subject: redacted, runs of white space as one space, cut. */
function textPart(text: string, maxBytes: number): string | undefined {
  // Redacted whole before the cut: a credential cut short would no longer match its pattern.
  const out = cutJsonText(redactText(text).replace(/\s+/g, ' ').trim(), maxBytes);
  return out === '' ? undefined : out;
}

/** A JSON value as (cut) JSON text, redacted. */
function jsonPart(value: JsonValue | undefined, maxBytes: number): string {
  const text = JSON.stringify(redactFreeText(value ?? null)) ?? 'null';
  return cutJsonText(text, maxBytes);
}

function objectAt(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

function stringAt(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The value of the tool input at a modification's target (`command`, `options.depth`, `tool.input.command`); undefined when not there. */
function inputValueAt(input: JsonObject, target: string): JsonValue | undefined {
  let node: JsonValue | undefined = input;
  for (const segment of target.replace(/^tool\.input\./, '').split('.')) {
    const object = objectAt(node);
    if (object === undefined || !Object.hasOwn(object, segment)) return undefined;
    node = object[segment];
  }
  return node;
}

/** What else a hook was about, by trigger: the user's prompt, the issue, the task. */
function whatOf(trigger: HookTrigger | undefined, context: JsonObject): string | undefined {
  if (trigger === 'user-prompt-submit') return stringAt(context['prompt']);
  const issue = objectAt(context['issue']);
  if (issue !== undefined) {
    const id = stringAt(issue['id']);
    const title = stringAt(issue['title']);
    if (id !== undefined || title !== undefined) return [id, title].filter((part) => part !== undefined && part !== '').join(' ');
  }
  const task = objectAt(context['task']);
  return task === undefined ? undefined : (stringAt(task['summary']) ?? stringAt(task['id']));
}

/** A signal's message: a block's reason, a prompt's message, an aid's context, a control's first reason. */
function messageOf(payload: SignalPayload): string | undefined {
  switch (payload.level) {
    case 'blocking':
      return payload.reason;
    case 'prompting':
      return payload.message;
    case 'aiding':
      return payload.context;
    case 'controlling':
      return payload.modifications[0]?.reason;
  }
}

function suggestionsOf(payload: SignalPayload): readonly string[] {
  if (payload.level === 'prompting') return payload.suggestions;
  if (payload.level === 'aiding') return payload.suggestions.map((suggestion) => suggestion.description);
  return [];
}

function changeOf(modification: Modification, input: JsonObject | undefined, known: boolean): SignalSubjectChange {
  const { value } = SIGNAL_SUBJECT_CAPS;
  // The hook's own input is the truth about "before"; the oracle's `original` only when the context is not known.
  const before = known ? (input === undefined ? undefined : inputValueAt(input, modification.target)) : modification.original;
  const target = cutJsonText(modification.target, SIGNAL_SUBJECT_CAPS.target);
  // A field named like a secret (`env.API_TOKEN`) is blanked whole, as in the input.
  if (modification.target.split('.').some(isSecretKey)) return [target, before === undefined ? null : JSON.stringify(REDACTED), JSON.stringify(REDACTED)];
  return [target, before === undefined ? null : jsonPart(before, value), jsonPart(modification.updated, value)];
}

/** The part of a subject that is the hook's (tool, input, what), the same for every signal of the hook. */
type HookPart = Pick<SignalSubject, 't' | 'i' | 'w'>;

/**
 * The hook's part, by context object: a decision's signals share the hook's context, and
 * redacting a large tool input once per signal would be wasted work.
 */
const hookParts = new WeakMap<JsonObject, { trigger: HookTrigger | undefined; part: HookPart }>();

function hookPartOf(trigger: HookTrigger | undefined, context: JsonObject): HookPart {
  const known = hookParts.get(context);
  if (known !== undefined && known.trigger === trigger) return known.part;
  const part: HookPart = {};
  const tool = objectAt(context['tool']);
  const input = tool === undefined ? undefined : objectAt(tool['input']);
  const name = tool === undefined ? undefined : stringAt(tool['name']);
  if (name !== undefined && name !== '') part.t = cutJsonText(redactText(name), SIGNAL_SUBJECT_CAPS.tool);
  if (input !== undefined) part.i = jsonPart(input, SIGNAL_SUBJECT_CAPS.input);
  const what = whatOf(trigger, context);
  const text = what === undefined ? undefined : textPart(what, SIGNAL_SUBJECT_CAPS.what);
  if (text !== undefined) part.w = text;
  hookParts.set(context, { trigger, part });
  return part;
}

/** What {@link signalSubject} reads. */
export interface SignalSubjectInput {
  /** The signal's payload (its decision structure). */
  payload: SignalPayload;
  /** The hook's trigger; none for a signal an operator pushed. */
  trigger?: HookTrigger | undefined;
  /** The hook's context as the worker evaluated it; none when not known (an operator's signal, a failure-policy decision). */
  context?: JsonObject | undefined;
}

/** Bytes of `subject` as JSON in UTF-8. */
export function signalSubjectBytes(subject: SignalSubject): number {
  return new TextEncoder().encode(JSON.stringify(subject)).length;
}

/**
 * The subject of a signal (see {@link SignalSubjectSchema}); undefined when there is nothing to
 * say. Pure; at most {@link MAX_SIGNAL_SUBJECT_BYTES} as JSON.
 */
export function signalSubject({ payload, trigger, context }: SignalSubjectInput): SignalSubject | undefined {
  const subject: SignalSubject = context === undefined ? {} : { ...hookPartOf(trigger, context) };
  const message = messageOf(payload);
  if (message !== undefined) {
    const text = textPart(message, SIGNAL_SUBJECT_CAPS.message);
    if (text !== undefined) subject.m = text;
  }
  const suggestions = suggestionsOf(payload);
  if (suggestions.length > 0) {
    subject.s = suggestions.slice(0, SIGNAL_SUBJECT_CAPS.suggestions).map((text) => textPart(text, SIGNAL_SUBJECT_CAPS.suggestion) ?? '');
    if (suggestions.length > SIGNAL_SUBJECT_CAPS.suggestions) subject.sn = suggestions.length;
  }
  if (payload.level === 'controlling') {
    const { modifications } = payload;
    const input = context === undefined ? undefined : objectAt(objectAt(context['tool'])?.['input']);
    subject.c = modifications.slice(0, SIGNAL_SUBJECT_CAPS.changes).map((modification) => changeOf(modification, input, context !== undefined));
    if (modifications.length > SIGNAL_SUBJECT_CAPS.changes) subject.cn = modifications.length;
  }
  return Object.keys(subject).length === 0 ? undefined : subject;
}

/** {@link signalSubject} as the JSON a signal-log entry stores; '' when there is none. */
export function signalSubjectJson(input: SignalSubjectInput): string {
  const subject = signalSubject(input);
  return subject === undefined ? '' : JSON.stringify(subject);
}

/**
 * A stored subject read back: the JSON of a signal-log entry's `subject` field, parsed with
 * {@link SignalSubjectSchema}; undefined when absent or unreadable (the entry stays readable
 * without it).
 */
export function parseSignalSubject(raw: string | undefined): SignalSubject | undefined {
  if (raw === undefined || raw === '' || raw.length > MAX_SIGNAL_SUBJECT_BYTES) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = SignalSubjectSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
