/**
 * Reading the tool call out of a hook context: one rule for every reader (the gateway's plan gate
 * and fleet view, the worker's tool approvals, the CLI's replay summary).
 *
 * The agent writes the context, so a reader must not guess: a `tool` it does not understand is
 * read as no tool at all, and each caller's "names no tool" path is the closed one (the plan gate
 * gates the call, an approval rule blocks it). A checked context (parseHookContext) always reads;
 * this is the second line for contexts read back from Redis, queues and logs.
 */
import type { JsonObject } from './primitives.js';
import { LIMITS } from './primitives.js';

/** A tool call as the hook named it: `context.tool.name` and `context.tool.input`. */
export interface HookToolCallView {
  readonly name: string;
  readonly input: JsonObject;
}

/** The fields of `context.tool` at the tool triggers (pre-tool-use: name, input; post-tool-use adds the rest). */
const TOOL_FIELDS: ReadonlySet<string> = new Set(['name', 'input', 'ok', 'output', 'response']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The tool call `context` names, or undefined when it names none the way the protocol writes one:
 * `tool` must be an own field holding an object with only the tool fields, a `name` of 1–256
 * characters and an `input` object. A bare string `tool`, a missing or array `input`, an empty or
 * overlong name, an unknown field: all undefined (the caller fails closed), never a best guess.
 */
export function hookToolCall(context: unknown): HookToolCallView | undefined {
  if (!isPlainObject(context) || !Object.hasOwn(context, 'tool')) return undefined;
  const tool = context['tool'];
  if (!isPlainObject(tool)) return undefined;
  for (const key of Object.keys(tool)) if (!TOOL_FIELDS.has(key)) return undefined;
  const name = Object.hasOwn(tool, 'name') ? tool['name'] : undefined;
  const input = Object.hasOwn(tool, 'input') ? tool['input'] : undefined;
  if (typeof name !== 'string' || name.length === 0 || name.length > LIMITS.maxShortString) return undefined;
  if (!isPlainObject(input)) return undefined;
  return { name, input: input as JsonObject };
}
