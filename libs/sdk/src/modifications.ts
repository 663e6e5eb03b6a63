/**
 * Applies the parameter changes of a `control` decision to a tool input. A modification's `target`
 * is a key or a dotted path inside the tool input (docs/hooks.md), e.g. `command` or `options.depth`.
 */
import type { JsonObject, JsonValue, Modification } from '@ahp/protocol';

/**
 * Returns a copy of `input` with every modification's `updated` value written at its `target`
 * path, creating intermediate objects where the path is missing. Does not modify `input`.
 */
export function applyModifications(input: JsonObject, modifications: readonly Modification[]): JsonObject {
  const result = structuredClone(input);
  for (const modification of modifications) {
    const keys = modification.target.split('.');
    const last = keys.pop();
    if (last === undefined) continue;
    let node: JsonObject = result;
    for (const key of keys) {
      const child: JsonValue | undefined = node[key];
      if (typeof child !== 'object' || child === null || Array.isArray(child)) node[key] = {};
      node = node[key] as JsonObject;
    }
    node[last] = structuredClone(modification.updated);
  }
  return result;
}
