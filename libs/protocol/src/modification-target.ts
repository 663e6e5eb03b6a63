/**
 * What a modification's `target` names inside a tool input, as a list of keys and array indexes.
 * Two spellings (docs/protocol.md, "Modification targets"):
 *
 * - a JSON Pointer (RFC 6901), starting with `/`: `/command`, `/command/2`, `/cmd.x`, `/a~1b`
 *   (`~1` is `/`, `~0` is `~`). Unambiguous: any key can be written, and a number names an array
 *   element. What the oracles and the approval flow emit; applying one checks that the value found
 *   there is the modification's `original` (see `applyModifications`).
 * - a dotted path (the older form, still what `hooks.yaml` `set` actions write): `command`,
 *   `options.depth`, or the same written from the hook context, `tool.input.command`. A key that
 *   contains a dot cannot be named this way.
 *
 * Both refuse prototype names (`__proto__`, `constructor`, `prototype`), so that applying a
 * modification can only ever write a field.
 */

/** Segments that would reach an object's prototype instead of a field of the input. */
const PROTOTYPE_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether `target` is written as a JSON Pointer (checked by the modification rules) rather than a dotted path. */
export function isPointerTarget(target: string): boolean {
  return target.startsWith('/');
}

/**
 * The keys `target` names inside the tool input; throws a TypeError for a target that names no
 * field (an empty dotted segment, a bad `~` escape, a prototype name, an empty target).
 */
export function modificationPath(target: string): string[] {
  let path: string[];
  if (isPointerTarget(target)) {
    path = target
      .slice(1)
      .split('/')
      .map((segment) => {
        if (/~(?![01])/.test(segment)) throw new TypeError(`modification target ${JSON.stringify(target)} has a "~" that is not ~0 or ~1`);
        return segment.replaceAll('~1', '/').replaceAll('~0', '~');
      });
  } else {
    path = target.replace(/^tool\.input\./, '').split('.');
    const empty = path.find((segment) => segment === '');
    if (empty !== undefined) throw new TypeError(`modification target ${JSON.stringify(target)} is not a dotted path into the tool input (empty segment)`);
  }
  const bad = path.find((segment) => PROTOTYPE_SEGMENTS.has(segment));
  if (bad !== undefined) throw new TypeError(`modification target ${JSON.stringify(target)} names a prototype key (${JSON.stringify(bad)})`);
  return path;
}

/** The reason `target` is not a usable target, or undefined when it is one. */
export function modificationTargetProblem(target: string): string | undefined {
  try {
    modificationPath(target);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The JSON Pointer of a path of keys and array indexes: `["cmd.x"]` → `/cmd.x`, `["command", 2]` → `/command/2`. */
export function pointerTarget(path: readonly (string | number)[]): string {
  return path.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** One key of a path, as the identity of a location: so `command`, `tool.input.command` and `/command` are one target. */
export function targetKey(target: string): string {
  return JSON.stringify(modificationPath(target));
}

/** Whether two paths name the same location or one lies inside the other (`/options` and `/options/depth`). */
export function pathsOverlap(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
