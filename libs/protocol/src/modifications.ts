/**
 * Applies the parameter changes of a `control` decision to a tool input. A modification's `target`
 * is a JSON Pointer (`/command`, `/argv/2`) or a dotted path (`command`, `options.depth`,
 * `tool.input.command`) inside the tool input: see modification-target.ts and docs/protocol.md,
 * "Modification targets".
 *
 * Fail closed, always: a change that cannot be applied exactly as it was decided must not let
 * the call run, unchanged or changed somewhere else. So applying throws, and returns nothing, when
 * - a target is not a usable path;
 * - a path crosses a value that is not an object or an array (a string, a number…), or an array
 *   with a segment that is not the index of one of its elements: it never replaces such a value by
 *   an object, nor an array by an object;
 * - a JSON Pointer target does not hold the modification's `original` when it is applied (the
 *   oracle decided about another value). `original: null` also matches a missing field. A
 *   redaction marker inside `original` (`[redacted]`, `[redacted:<hmac>]`: the worker never saw
 *   that secret) matches whatever the input holds there.
 *
 * Modifications apply in order, each to the result of the previous ones.
 */
import type { Modification } from './decision.js';
import { isPointerTarget, modificationPath } from './modification-target.js';
import type { JsonObject, JsonValue } from './primitives.js';
import { isRedactionMarker } from './redact.js';

/** Why a modification could not be applied; the call must not run. */
export class ModificationError extends TypeError {
  override readonly name = 'ModificationError';
}

const INDEX = /^(?:0|[1-9][0-9]*)$/;

/** Whether `actual` is `expected`, a redaction marker in `expected` standing for any value. */
export function matchesOriginal(actual: JsonValue | undefined, expected: JsonValue): boolean {
  if (isRedactionMarker(expected)) return actual !== undefined;
  if (actual === undefined) return expected === null;
  if (expected === null || typeof expected !== 'object') return actual === expected;
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual) !== Array.isArray(expected)) return false;
  if (Array.isArray(expected)) {
    const list = actual as JsonValue[];
    return list.length === expected.length && expected.every((item, i) => matchesOriginal(list[i], item));
  }
  const object = actual as JsonObject;
  const keys = Object.keys(expected);
  if (keys.length !== Object.keys(object).length) return false;
  return keys.every((key) => Object.hasOwn(object, key) && matchesOriginal(object[key], expected[key] as JsonValue));
}

type Container = JsonObject | JsonValue[];

function isContainer(value: JsonValue | undefined): value is Container {
  return typeof value === 'object' && value !== null;
}

/** The element of `node` named `key`, or undefined when it has none; throws for an array and a key that is not one of its indexes. */
function childOf(node: Container, key: string, target: string): JsonValue | undefined {
  if (Array.isArray(node)) {
    if (!INDEX.test(key) || Number(key) >= node.length) {
      throw new ModificationError(`modification target ${JSON.stringify(target)}: ${JSON.stringify(key)} is not an index of the array there (length ${node.length})`);
    }
    return node[Number(key)];
  }
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

function write(node: Container, key: string, value: JsonValue): void {
  if (Array.isArray(node)) node[Number(key)] = value;
  // defineProperty, not assignment: a key named like a setter must stay a plain field.
  else Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

function applyOne(result: JsonObject, modification: Modification): void {
  const { target } = modification;
  const path = modificationPath(target);
  const last = path[path.length - 1] as string;
  let node: Container = result;
  for (const key of path.slice(0, -1)) {
    const child = childOf(node, key, target);
    if (child === undefined) {
      // A missing field on the way: created, as a field of an object only (never an array element).
      const created: JsonObject = {};
      write(node, key, created);
      node = created;
    } else if (isContainer(child)) {
      node = child;
    } else {
      throw new ModificationError(`modification target ${JSON.stringify(target)} crosses ${JSON.stringify(key)}, which holds a ${child === null ? 'null' : typeof child}, not an object`);
    }
  }
  const current = childOf(node, last, target);
  if (isPointerTarget(target) && !matchesOriginal(current, modification.original)) {
    throw new ModificationError(`modification target ${JSON.stringify(target)} does not hold the value the change was decided for (its "original"); it is not applied anywhere else`);
  }
  write(node, last, structuredClone(modification.updated));
}

/**
 * Returns a copy of `input` with every modification's `updated` value written at its `target`,
 * in order (see the module comment). Does not modify `input`. Throws a {@link ModificationError}
 * (a TypeError) when any of them cannot be applied exactly; nothing is returned then.
 */
export function applyModifications(input: JsonObject, modifications: readonly Modification[]): JsonObject {
  // Every target is checked first, so a hostile one cannot be half-applied before the error.
  for (const modification of modifications) {
    try {
      modificationPath(modification.target);
    } catch (error) {
      throw new ModificationError((error as Error).message);
    }
  }
  const result = structuredClone(input);
  for (const modification of modifications) applyOne(result, modification);
  return result;
}
