/**
 * How long the strings of a hook context may be, wherever it travels: in a `hook` frame, in a
 * coding agent's hook body, and in the hook job a worker evaluates (HookJobDataSchema). All three
 * use these limits, so a context the gateway accepts is one the queue carries and the rules read
 * whole.
 *
 * Why two lengths: the tool's own text — its input (`tool.input.*`: a file a Write creates, an
 * edit's new text), its output (`tool.output`, `tool.response.*`) and a user prompt — can
 * legitimately be long, and a rule that reads only part of it can be walked around by padding.
 * Those strings may have up to `LIMITS.maxLongText` characters (256 KiB), all of them together
 * at most `LIMITS.maxLongTextTotal` (1 MiB), which bounds a job's size; every other string of a
 * context keeps `LIMITS.maxJsonString` (64 KiB). Patterns run on RE2 (linear time), so reading
 * 256 KiB costs a rule milliseconds (docs/hooks.md, "Patterns").
 *
 * A context over these limits is not evaluated in part behind anyone's back: the gateway refuses
 * it, or — for a tool result under a fail-open policy, where the tool already ran — evaluates
 * what {@link fitToolText} keeps and says so (docs/hooks.md, "Large tool text").
 */
import { LIMITS, boundedJsonObject, boundedJsonValue, inspectJsonValue, type JsonObject, type JsonStringLimits, type JsonValue, type JsonValueIssue } from './primitives.js';

type Path = readonly (string | number)[];

/** Whether `path` (from the context) is the tool's own text: under `tool.input` or `tool.response`, or `tool.output`, or `prompt`. */
export function isToolTextPath(path: Path): boolean {
  if (path.length === 1) return path[0] === 'prompt';
  if (path[0] !== 'tool') return false;
  return path[1] === 'input' || path[1] === 'response' || (path[1] === 'output' && path.length === 2);
}

/** The most characters a string at `path` of a hook context may have. */
export function hookContextStringLimit(path: Path): number {
  return isToolTextPath(path) ? LIMITS.maxLongText : LIMITS.maxJsonString;
}

/** The string limits of a whole hook context. */
export const HOOK_CONTEXT_STRINGS: JsonStringLimits = Object.freeze({ maxStringAt: hookContextStringLimit, maxLongTotal: LIMITS.maxLongTextTotal });

/** The string limits inside a tool's input or response (paths from there). */
const TOOL_TEXT_STRINGS: JsonStringLimits = Object.freeze({ maxStringAt: () => LIMITS.maxLongText, maxLongTotal: LIMITS.maxLongTextTotal });

/** The limits of a hook context but for the length of the tool's text: what cutting that text cannot fix. */
const UNCUT_TOOL_TEXT: JsonStringLimits = Object.freeze({
  maxStringAt: (path: Path) => (isToolTextPath(path) ? Number.MAX_SAFE_INTEGER : LIMITS.maxJsonString),
  maxLongTotal: Number.MAX_SAFE_INTEGER,
});

/** {@link inspectJsonValue} with the hook context's string limits. */
export function inspectHookContext(context: unknown, maxIssues = 10): JsonValueIssue[] {
  return inspectJsonValue(context, maxIssues, HOOK_CONTEXT_STRINGS);
}

/** A hook's context as a frame, a job or a coding agent's hook carries it: a JSON object within the hook context limits. */
export const HookContextObjectSchema = boundedJsonObject(HOOK_CONTEXT_STRINGS).meta({
  id: 'HookContextObject',
  description: `A JSON object; bounded depth and size, no __proto__/constructor/prototype keys. Strings of the tool's text (tool.input.*, tool.output, tool.response.*, prompt) up to ${LIMITS.maxLongText} characters, ${LIMITS.maxLongTextTotal} together; others up to ${LIMITS.maxJsonString}.`,
  type: 'object',
  propertyNames: { maxLength: LIMITS.maxShortString },
});

/** A tool's arguments (`tool.input`): a JSON object whose strings may be tool text. */
export const ToolTextObjectSchema = boundedJsonObject(TOOL_TEXT_STRINGS).meta({
  id: 'ToolTextObject',
  description: `A JSON object; bounded depth and size, strings up to ${LIMITS.maxLongText} characters.`,
  type: 'object',
  propertyNames: { maxLength: LIMITS.maxShortString },
});

/** A tool's structured response (`tool.response`): any JSON value whose strings may be tool text. */
export const ToolTextValueSchema = boundedJsonValue(TOOL_TEXT_STRINGS).meta({
  id: 'ToolTextValue',
  description: `Any JSON value; bounded depth and size, strings up to ${LIMITS.maxLongText} characters.`,
});

/** One string {@link fitToolText} cut. */
export interface ToolTextCut {
  /** Where, as a dotted path from the context (`tool.response.stdout`). */
  readonly path: string;
  /** Its length. */
  readonly chars: number;
  /** How many of its first characters were kept. */
  readonly kept: number;
}

/** What {@link fitToolText} made of a context: the context within the limits, and what was cut to get there (empty when nothing). */
export interface FittedContext {
  readonly context: JsonObject;
  readonly cut: readonly ToolTextCut[];
}

/**
 * `context` within the hook context limits by cutting the tool's text only: each string at a
 * tool-text path is cut to `LIMITS.maxLongText` and, in document order, to what is left of
 * `LIMITS.maxLongTextTotal`. Undefined when cutting that text is not enough (a string elsewhere
 * is too long, the nesting is too deep, an array too long): such a context cannot be evaluated
 * even in part. The input is not changed; only the objects on the way to a cut string are copied.
 */
export function fitToolText(context: JsonObject): FittedContext | undefined {
  if (inspectHookContext(context, 1).length === 0) return { context, cut: [] };
  // Anything but the tool text's length (a forbidden key, depth, a long string elsewhere) is not ours to fix.
  if (inspectJsonValue(context, 1, UNCUT_TOOL_TEXT).length > 0) return undefined;
  const cut: ToolTextCut[] = [];
  let longLeft = LIMITS.maxLongTextTotal;
  const fit = (value: JsonValue, path: (string | number)[]): JsonValue => {
    if (typeof value === 'string') {
      if (value.length <= LIMITS.maxJsonString || !isToolTextPath(path)) return value;
      const keep = Math.min(value.length, LIMITS.maxLongText, Math.max(LIMITS.maxJsonString, longLeft));
      if (keep > LIMITS.maxJsonString) longLeft -= keep;
      if (keep === value.length) return value;
      cut.push({ path: path.join('.'), chars: value.length, kept: keep });
      return cutAt(value, keep);
    }
    // The shape was checked above: bounded depth, plain objects, no forbidden key.
    if (Array.isArray(value)) return value.map((item, index) => fit(item, [...path, index]));
    if (value !== null && typeof value === 'object') {
      const copy: JsonObject = {};
      for (const [key, item] of Object.entries(value)) copy[key] = fit(item, [...path, key]);
      return copy;
    }
    return value;
  };
  const fitted = fit(context, []) as JsonObject;
  return inspectHookContext(fitted, 1).length === 0 ? { context: fitted, cut } : undefined;
}

/** The first `chars` characters of `text`, one fewer when the cut would split a surrogate pair. */
function cutAt(text: string, chars: number): string {
  const last = text.charCodeAt(chars - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? chars - 1 : chars);
}
