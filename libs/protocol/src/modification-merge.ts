/**
 * How the control signals of one hook combine into the modifications the agent applies
 * (docs/hooks.md, §4 "How a hook is evaluated"). No control is ever dropped silently: two changes of one
 * field either combine by a stated rule, or the hook is blocked naming both.
 *
 * For two modifications whose targets name the same field, or one a field inside the other
 * (`/options` and `/options/depth`), in signal order (the oracle order of the configuration):
 * 1. the same `updated` value: one change, kept once;
 * 2. both `updated` numbers: the smaller; both booleans: `false`. Such a change imposes a limit
 *    (a batch size, a timeout, a switch), and the stricter value satisfies both limits;
 * 3. the later one's `original` is the value the earlier one produced (it was decided on top of
 *    the earlier change): both, composed into one change from the first `original` to the last
 *    `updated`;
 * 4. otherwise they conflict: neither can be applied to the other's result, and keeping one
 *    would cancel a control the configuration asked for, so the hook is blocked
 *    ({@link ModificationConflict}), naming both sources.
 * Targets that only overlap (one inside the other) combine only by rule 1; otherwise they conflict.
 *
 * An operator's approval with an edited input is final ({@link MergeItem.authoritative}): what
 * the operator approved is what runs. A rule's change of a field the operator edited was decided
 * for the agent's value, which the operator replaced: it is superseded, and the operator's change
 * says so in its `reason`. Changes of fields the operator left as they were still apply.
 */
import type { Modification } from './decision.js';
import { matchesOriginal } from './modifications.js';
import { modificationPath, pathsOverlap } from './modification-target.js';

/** One modification of a control signal, with who made it. */
export interface MergeItem {
  readonly modification: Modification;
  /** The signal's source (the oracle), for reasons and conflicts. */
  readonly source: string;
  /** The rule of the signal (`context.rule`), when it names one. */
  readonly rule?: string;
  /** An operator's edit of the input when approving: supersedes other changes of the same fields. */
  readonly authoritative?: boolean;
}

/** Two changes of one field that cannot both apply: the hook is blocked. */
export interface ModificationConflict {
  readonly first: MergeItem;
  readonly second: MergeItem;
}

/** What {@link mergeModifications} returns. */
export interface MergedModifications {
  readonly modifications: Modification[];
  readonly conflicts: ModificationConflict[];
}

interface Entry {
  path: string[];
  item: MergeItem;
  modification: Modification;
  superseded: string[];
}

const MAX_REASON = 4000;

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b) || (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && matchesStrict(a, b));
}

/** Deep equality irrespective of key order (markers compared literally). */
function matchesStrict(a: object, b: object): boolean {
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Who made a change, for people: `oracle` or `oracle (rule id)`. */
export function describeSource(item: MergeItem): string {
  return item.rule === undefined ? item.source : `${item.source} (rule ${item.rule})`;
}

function clip(text: string): string {
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text;
}

/** The stricter of two limits (rule 2), or undefined when they are not two numbers or two booleans. */
function stricter(earlier: Modification, later: Modification): Modification | undefined {
  const a = earlier.updated;
  const b = later.updated;
  if (typeof a === 'number' && typeof b === 'number') return b < a ? later : earlier;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === true && b === false ? later : earlier;
  return undefined;
}

/**
 * The path of a target; a target that names no field (schemas refuse it, a hand-built signal may
 * carry one) stays a location of its own: kept, so that applying it fails closed.
 */
function pathOrSelf(target: string): string[] {
  try {
    return modificationPath(target);
  } catch {
    return [`\u0000${target}`];
  }
}

/** Combines the modifications of one hook's control signals (see the module comment); `items` in signal order. */
export function mergeModifications(items: readonly MergeItem[]): MergedModifications {
  const entries: Entry[] = [];
  const conflicts: ModificationConflict[] = [];
  // The operator's edits first: they define the input the other changes are judged against.
  const ordered = [...items.filter((i) => i.authoritative === true), ...items.filter((i) => i.authoritative !== true)];
  for (const item of ordered) {
    const path = pathOrSelf(item.modification.target);
    const overlapping = entries.filter((entry) => pathsOverlap(entry.path, path));
    if (overlapping.length === 0) {
      entries.push({ path, item, modification: item.modification, superseded: [] });
      continue;
    }
    const authority = overlapping.find((entry) => entry.item.authoritative === true);
    if (authority !== undefined && item.authoritative !== true) {
      for (const entry of overlapping.filter((e) => e.item.authoritative === true)) {
        entry.superseded.push(`${describeSource(item)}'s change of ${item.modification.target} to ${JSON.stringify(item.modification.updated).slice(0, 200)}`);
      }
      continue;
    }
    const [entry] = overlapping;
    if (overlapping.length > 1 || entry === undefined) {
      for (const other of overlapping) conflicts.push({ first: other.item, second: item });
      continue;
    }
    const samePath = entry.path.length === path.length;
    const later = item.modification;
    const earlier = entry.modification;
    if (sameJson(earlier.updated, later.updated)) continue;
    if (!samePath) {
      conflicts.push({ first: entry.item, second: item });
      continue;
    }
    const limit = stricter(earlier, later);
    if (limit !== undefined) {
      entry.modification = limit;
      continue;
    }
    if (matchesOriginal(earlier.updated, later.original) && !sameJson(later.original, earlier.original)) {
      entry.modification = { target: earlier.target, original: earlier.original, updated: later.updated, reason: clip(`${earlier.reason}; then ${later.reason}`) };
      continue;
    }
    conflicts.push({ first: entry.item, second: item });
  }
  const modifications = entries.map((entry) =>
    entry.superseded.length === 0 ? entry.modification : { ...entry.modification, reason: clip(`${entry.modification.reason} (replaces ${entry.superseded.join('; ')})`) },
  );
  return { modifications, conflicts };
}
