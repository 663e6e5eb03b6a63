/**
 * Applies the parameter changes of a `control` decision to a tool input. A modification's `target`
 * is a key or a dotted path inside the tool input (docs/protocol.md, `decision`), e.g. `command`
 * or `options.depth`; the same path written from the hook context, `tool.input.command`, means the
 * same field (the Claude Code mapping reads both forms alike).
 */
import type { Modification } from './decision.js';
import type { JsonObject, JsonValue } from './primitives.js';

/** Segments that would reach an object's prototype instead of a field of the input. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/** The path inside the tool input that `target` names; throws for one that names no field. */
function inputPath(target: string): string[] {
  const path = target.replace(/^tool\.input\./, '').split('.');
  const bad = path.find((segment) => segment === '' || FORBIDDEN_SEGMENTS.has(segment));
  // Fail closed: a change that cannot be applied must not let the unchanged input run.
  if (bad !== undefined) throw new TypeError(`modification target ${JSON.stringify(target)} is not a dotted path into the tool input (segment ${JSON.stringify(bad)})`);
  return path;
}

/**
 * Returns a copy of `input` with every modification's `updated` value written at its `target`
 * path, creating intermediate objects where the path is missing. Does not modify `input`. Throws
 * a TypeError, before writing anything, when a target has an empty segment or a prototype key.
 */
export function applyModifications(input: JsonObject, modifications: readonly Modification[]): JsonObject {
  const writes = modifications.map((modification) => ({ path: inputPath(modification.target), updated: modification.updated }));
  const result = structuredClone(input);
  for (const { path, updated } of writes) {
    const keys = path.slice(0, -1);
    const last = path[path.length - 1] ?? '';
    let node: JsonObject = result;
    for (const key of keys) {
      const child: JsonValue | undefined = Object.hasOwn(node, key) ? node[key] : undefined;
      if (typeof child !== 'object' || child === null || Array.isArray(child)) node[key] = {};
      node = node[key] as JsonObject;
    }
    node[last] = structuredClone(updated);
  }
  return result;
}
