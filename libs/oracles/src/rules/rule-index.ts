/**
 * The rule index: which rules of an oracle can match a hook, found without evaluating them all.
 *
 * A condition written `G1 and G2 and … and rest`, whose leading conjuncts are **guards** on a
 * context path — `p == "lit"`, `p in ["a", "b"]`, the same with `lower(p)`, and `p matches /re/`
 * — can only hold when every guard accepts the path's value. The index files each rule under one
 * of its guards (the entry): a map from the literal to the rules for `==`/`in`, and for `matches`
 * the literals RE2 says a match needs (its prefilter), searched for all rules at once with one
 * Aho–Corasick pass over the value. An evaluation then looks only at the rules whose entry
 * accepts, plus the rules it cannot index, in their configured order.
 *
 * Skipping a rule must change nothing, so a rule is skipped only where its full evaluation is
 * certain to be "false, nothing read missing, nothing counted":
 * - rules with overrides or an escalation counter (a compliant evaluation resets the counter)
 *   are never indexed;
 * - when a guard's path is absent from the context, or holds something other than a string (the
 *   condition would report it missing or of the wrong type, and a restricting rule fails closed),
 *   every rule guarded on that path is evaluated;
 * - guards are leading conjuncts: `and` stops at the first false one, so a rejecting guard ends
 *   the evaluation before anything after it is read.
 */
import { parse } from '../expression/parser.js';
import type { Node } from '../expression/parser.js';
import { RESERVED_NAMES, patternKey } from '../expression/compile.js';
import { member } from '../expression/values.js';
import type { Value } from '../expression/values.js';
import { compileLinearPattern } from '../pattern/linear-pattern.js';
import type { LinearPattern, PatternPrefilter } from '../pattern/linear-pattern.js';
import { AhoCorasick } from './aho-corasick.js';

/** A leading conjunct the index understands. */
type Guard =
  | { readonly kind: 'equals'; readonly path: readonly string[]; readonly lower: boolean; readonly values: readonly string[] }
  | { readonly kind: 'matches'; readonly path: readonly string[]; readonly pattern: LinearPattern };

/** What the index needs of a rule: its only condition, when it can be indexed at all. */
export interface IndexableRule {
  /** `undefined` when the rule must always be evaluated (overrides, counters). */
  readonly condition: string | undefined;
  /** Patterns the condition's compilation already built (by `patternKey`), reused here. */
  readonly patterns?: ReadonlyMap<string, LinearPattern> | undefined;
}

/** A prefilter whose literals are numbered in the oracle's automaton. */
type Filter = { readonly kind: 'text'; readonly id: number } | { readonly kind: 'and' | 'or'; readonly items: readonly Filter[] };

interface PathEntries {
  readonly path: readonly string[];
  /**
   * Rules whose entry or an earlier guard is on this path, which may need evaluating when the
   * value is absent: filed by their first guard when that is an `==`/`in` on another path (so a
   * tool-name guard that rejects skips them without a walk), the others in `guardedRest`.
   */
  readonly guardedByFirst: Map<string, { path: readonly string[]; exact: Map<string, number[]>; lowered: Map<string, number[]> }>;
  readonly guardedRest: number[];
  readonly exact: Map<string, number[]>;
  readonly lowered: Map<string, number[]>;
  /** `matches` entries with a literal filter: per literal id, the rules that use it. */
  readonly byLiteral: Map<number, number[]>;
  readonly filters: Map<number, Filter>;
  /** `matches` entries without a usable literal filter: evaluated whenever the value is a string. */
  readonly unfiltered: number[];
  literals: string[];
  automaton?: AhoCorasick;
}

/** Finds the rules of one oracle that can match a context. */
export interface RuleIndex {
  /** How many rules are filed under a guard (the rest are always evaluated). */
  readonly indexed: number;
  /** The indices of the rules to evaluate for `context`, ascending. */
  candidates(context: Value): readonly number[];
}

const RESERVED: ReadonlySet<string> = new Set(RESERVED_NAMES.filter((name) => name !== 'context'));
/** Guards looked at per condition: enough for "tool, then command" shapes. */
const MAX_GUARDS = 4;

/** Builds the index of `rules` (in configured order). */
export function createRuleIndex(rules: readonly IndexableRule[]): RuleIndex {
  const always: number[] = [];
  const paths = new Map<string, PathEntries>();
  const entriesOf = (path: readonly string[]): PathEntries => {
    const key = path.join('\u0000');
    let entries = paths.get(key);
    if (entries === undefined) {
      entries = { path, guardedByFirst: new Map(), guardedRest: [], exact: new Map(), lowered: new Map(), byLiteral: new Map(), filters: new Map(), unfiltered: [], literals: [] };
      paths.set(key, entries);
    }
    return entries;
  };
  const literalIds = new Map<PathEntries, Map<string, number>>();
  const numbered = (entries: PathEntries, filter: PatternPrefilter): Filter => {
    if (filter.kind === 'text') {
      let ids = literalIds.get(entries);
      if (ids === undefined) literalIds.set(entries, (ids = new Map()));
      let id = ids.get(filter.text);
      if (id === undefined) {
        id = entries.literals.length;
        entries.literals.push(filter.text);
        ids.set(filter.text, id);
      }
      return { kind: 'text', id };
    }
    return { kind: filter.kind, items: filter.items.map((item) => numbered(entries, item)) };
  };

  let indexed = 0;
  const guardsByRule = new Map<number, readonly Guard[]>();
  rules.forEach((rule, index) => {
    const guards = rule.condition === undefined ? [] : guardsOf(rule.condition, rule.patterns);
    if (guards.length === 0) {
      always.push(index);
      return;
    }
    indexed += 1;
    guardsByRule.set(index, guards);
    // The entry: the last `matches` guard with a literal filter (the most selective), else the first guard.
    let entryAt = 0;
    guards.forEach((guard, at) => {
      if (guard.kind === 'matches' && guard.pattern.prefilter !== undefined) entryAt = at;
    });
    const first = guards[0] as Guard;
    const firstKey = first.path.join('\u0000');
    const filedOn = new Set<string>();
    for (let at = 0; at <= entryAt; at += 1) {
      const path = (guards[at] as Guard).path;
      const key = path.join('\u0000');
      if (filedOn.has(key)) continue;
      filedOn.add(key);
      const on = entriesOf(path);
      if (first.kind === 'equals' && firstKey !== key) {
        let bucket = on.guardedByFirst.get(firstKey);
        if (bucket === undefined) on.guardedByFirst.set(firstKey, (bucket = { path: first.path, exact: new Map(), lowered: new Map() }));
        for (const value of new Set(first.values)) push(first.lower ? bucket.lowered : bucket.exact, value, index);
      } else {
        on.guardedRest.push(index);
      }
    }
    const entry = guards[entryAt] as Guard;
    const entries = entriesOf(entry.path);
    if (entry.kind === 'equals') {
      const map = entry.lower ? entries.lowered : entries.exact;
      for (const value of new Set(entry.values)) push(map, value, index);
    } else if (entry.pattern.prefilter === undefined) {
      entries.unfiltered.push(index);
    } else {
      const filter = numbered(entries, entry.pattern.prefilter);
      entries.filters.set(index, filter);
      for (const id of literalsOf(filter)) push(entries.byLiteral, id, index);
    }
  });
  const all = [...paths.values()];
  for (const entries of all) {
    if (entries.literals.length > 0) entries.automaton = new AhoCorasick(entries.literals);
  }

  return {
    indexed,
    candidates(context: Value): readonly number[] {
      if (indexed === 0) return always;
      const chosen = new Set<number>(always);
      const values = new Map<string, Value>();
      const valueAt = (path: readonly string[]): Value => {
        const key = path.length === 1 ? (path[0] as string) : path.join('\u0000');
        if (!values.has(key)) values.set(key, read(context, path));
        return values.get(key);
      };
      for (const entries of all) {
        const value = valueAt(entries.path);
        if (typeof value !== 'string') {
          // Absent or not a string (which the guard cannot read: a type problem): evaluated unless
          // a guard before this one rejects (then `and` stops there).
          const consider = (index: number) => {
            if (!chosen.has(index) && !rejectedBeforeAbsent(guardsByRule.get(index) ?? [], valueAt)) chosen.add(index);
          };
          entries.guardedRest.forEach(consider);
          for (const bucket of entries.guardedByFirst.values()) {
            const firstValue = valueAt(bucket.path);
            if (typeof firstValue !== 'string') {
              for (const list of [...bucket.exact.values(), ...bucket.lowered.values()]) list.forEach(consider);
            } else {
              bucket.exact.get(firstValue)?.forEach(consider);
              bucket.lowered.get(firstValue.toLowerCase())?.forEach(consider);
            }
          }
          continue;
        }
        for (const index of entries.exact.get(value) ?? []) chosen.add(index);
        if (entries.lowered.size > 0) for (const index of entries.lowered.get(value.toLowerCase()) ?? []) chosen.add(index);
        for (const index of entries.unfiltered) chosen.add(index);
        if (entries.automaton === undefined) continue;
        const found = entries.automaton.search(value);
        if (found.size === 0) continue;
        for (const id of found) {
          for (const index of entries.byLiteral.get(id) ?? []) {
            if (chosen.has(index)) continue;
            const filter = entries.filters.get(index);
            if (filter !== undefined && passes(filter, found)) chosen.add(index);
          }
        }
      }
      return [...chosen].sort((a, b) => a - b);
    },
  };
}

/** Whether a guard rejects its string value before any guard reads an absent or non-string one. */
function rejectedBeforeAbsent(guards: readonly Guard[], valueAt: (path: readonly string[]) => Value): boolean {
  for (const guard of guards) {
    const value = valueAt(guard.path);
    if (typeof value !== 'string') return false;
    if (!accepts(guard, value)) return true;
  }
  return false;
}

/** What the guard's conjunct evaluates to on a string value (see the guard kinds). */
function accepts(guard: Guard, value: string): boolean {
  if (guard.kind === 'matches') return guard.pattern.test(value);
  return guard.values.includes(guard.lower ? value.toLowerCase() : value);
}

function push<K>(map: Map<K, number[]>, key: K, index: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [index]);
  else if (list[list.length - 1] !== index) list.push(index);
}

function literalsOf(filter: Filter): number[] {
  return filter.kind === 'text' ? [filter.id] : filter.items.flatMap(literalsOf);
}

function passes(filter: Filter, found: ReadonlySet<number>): boolean {
  switch (filter.kind) {
    case 'text':
      return found.has(filter.id);
    case 'and':
      return filter.items.every((item) => passes(item, found));
    case 'or':
      return filter.items.some((item) => passes(item, found));
  }
}

/** The value at `path` in the context, as the expression reads it (`undefined` when absent). */
function read(context: Value, path: readonly string[]): Value {
  let value = context;
  for (const key of path) {
    value = member(value, key);
    if (value === undefined) return undefined;
  }
  return value;
}

/** The leading guards of `condition` (none when it does not start with one or does not parse). */
function guardsOf(condition: string, patterns: ReadonlyMap<string, LinearPattern> | undefined): Guard[] {
  let root: Node;
  try {
    root = parse(condition);
  } catch {
    return [];
  }
  const conjuncts = root.type === 'logical' && root.op === 'and' ? root.operands : [root];
  const guards: Guard[] = [];
  for (const conjunct of conjuncts.slice(0, MAX_GUARDS)) {
    const guard = guardOf(conjunct, patterns);
    if (guard === undefined) break;
    guards.push(guard);
  }
  return guards;
}

function guardOf(node: Node, patterns: ReadonlyMap<string, LinearPattern> | undefined): Guard | undefined {
  if (node.type !== 'compare') return undefined;
  if (node.op === 'matches') {
    const path = contextPath(node.left);
    if (path === undefined) return undefined;
    const right = node.right;
    const source = right.type === 'regex' ? right.source : right.type === 'literal' && typeof right.value === 'string' ? right.value : undefined;
    if (source === undefined) return undefined;
    const flags = right.type === 'regex' ? right.flags : '';
    try {
      return { kind: 'matches', path, pattern: patterns?.get(patternKey(source, flags)) ?? compileLinearPattern(source, flags) };
    } catch {
      return undefined;
    }
  }
  if (node.op !== '==' && node.op !== 'in') return undefined;
  let subject = node.left;
  let lower = false;
  if (subject.type === 'call' && subject.name === 'lower' && subject.args.length === 1 && subject.args[0] !== undefined) {
    subject = subject.args[0];
    lower = true;
  }
  const path = contextPath(subject);
  if (path === undefined) return undefined;
  const values = node.op === '==' ? stringLiterals([node.right]) : node.right.type === 'list' ? stringLiterals(node.right.items) : undefined;
  return values === undefined ? undefined : { kind: 'equals', path, lower, values };
}

/** The strings of `nodes` when every one is a string literal. */
function stringLiterals(nodes: readonly Node[]): string[] | undefined {
  const values: string[] = [];
  for (const node of nodes) {
    if (node.type !== 'literal' || typeof node.value !== 'string') return undefined;
    values.push(node.value);
  }
  return values;
}

/** `tool.input.command` as keys from the context root; `undefined` for anything but a plain context path. */
function contextPath(node: Node): string[] | undefined {
  if (node.type === 'var') {
    if (RESERVED.has(node.name)) return undefined;
    return node.name === 'context' ? [] : [node.name];
  }
  if (node.type === 'member') {
    const base = contextPath(node.object);
    return base === undefined ? undefined : [...base, node.key];
  }
  return undefined;
}
