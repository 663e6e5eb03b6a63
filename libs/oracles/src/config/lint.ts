/**
 * Lint warnings of a valid hooks configuration: things that compile and run, and are almost
 * certainly not what the author meant. Warnings never refuse a configuration (publishing still
 * works); they are reported beside the issues, in the same located shape.
 *
 * Three kinds, each conservative — when the analysis is not certain, it says nothing:
 *
 * - `never-denies`: a hook whose trigger may block, none of whose enabled oracles can block or ask
 *   for approval (every oracle is rules-only or a rules-only built-in, and no rule has a block
 *   step or `require_approval`). Built-ins with logic of their own and plugins are assumed able to.
 * - `unknown-field`: a condition (or an override's `when`/`condition`) reads a context field its
 *   trigger's typed context (`HOOK_CONTEXT_SCHEMAS`) never has, e.g. `tool.input.command` at
 *   `user-prompt-submit`. Checked as deep as the schema's strict objects go; free-form areas
 *   (`tool.input`, `extra`) end the check.
 * - `shadowed-rule`: an earlier rule of the same oracle whose condition is `true` or the same
 *   normalised condition (same language, same params) and whose effect is decisive — any rule
 *   under `match: first`, a fixed `block` under `match: all` — so the later rule never decides.
 */
import { parse as parseCel } from '@bufbuild/cel';
import { HOOK_CONTEXT_SCHEMAS, TRIGGERS, escalationSteps } from '@ahp/protocol';
import type { HookOracle, HookRule, HookTrigger, HooksConfig } from '@ahp/protocol';
import { z } from 'zod';
import { BUILTIN_ORACLES } from '../builtins/index.js';
import { RESERVED_NAMES } from '../expression/compile.js';
import { parse as parseNative } from '../expression/parser.js';
import type { Node } from '../expression/parser.js';
import type { ConfigIssue, PathSegment, RawIssue } from './issues.js';
import { locateAll } from './parse.js';
import type { LocatedDocument } from './parse.js';

/** What a warning is about. */
export type ConfigWarningKind = 'never-denies' | 'unknown-field' | 'shadowed-rule';

/** A lint warning: an issue's position and path, its kind, and the rule (`<trigger>/<oracle>/<rule id>`) or hook it names. */
export interface ConfigWarning extends ConfigIssue {
  kind: ConfigWarningKind;
  /** `<trigger>/<oracle>/<rule id>` for rule warnings, the trigger for `never-denies`. */
  subject: string;
}

interface RawWarning extends RawIssue {
  kind: ConfigWarningKind;
  subject: string;
}

/** Options of {@link lintHooksConfig}. */
export interface LintOptions {
  /** Names of the plugin oracles loaded, so an entry naming one is not taken for rules-only. */
  pluginNames?: ReadonlySet<string>;
}

/**
 * Lints a configuration that already compiled (lint assumes valid expressions and names; anything
 * it cannot parse is skipped). `located` gives the warnings their line and column.
 */
export function lintHooksConfig(config: HooksConfig, located: LocatedDocument | undefined, options: LintOptions = {}): ConfigWarning[] {
  const warnings: RawWarning[] = [];
  const plugins = options.pluginNames ?? new Set<string>();
  for (const [key, hook] of Object.entries(config.hooks)) {
    const trigger = key as HookTrigger;
    const hookPath: PathSegment[] = ['hooks', key];
    if (TRIGGERS[trigger].allowed.includes('block') && !hook.oracles.some((oracle) => oracle.enabled !== false && oracleMayDeny(oracle, plugins))) {
      warnings.push({
        kind: 'never-denies',
        subject: trigger,
        path: hookPath,
        at: 'key',
        message: `${trigger} can never deny anything: none of its enabled oracles can block or ask for approval (only its failure policy can)`,
      });
    }
    hook.oracles.forEach((oracle, oracleIndex) => {
      const rules = oracle.rules ?? [];
      const shadows = shadowingRules(rules, oracle.match ?? 'all', config.lang);
      rules.forEach((rule, ruleIndex) => {
        const rulePath: PathSegment[] = [...hookPath, 'oracles', oracleIndex, 'rules', ruleIndex];
        const subject = `${trigger}/${oracle.name}/${ruleName(rule, ruleIndex)}`;
        const lang = rule.lang ?? config.lang ?? 'ahp';
        const expressions: { path: PathSegment[]; source: string }[] = [{ path: [...rulePath, 'condition'], source: rule.condition }];
        (rule.overrides ?? []).forEach((override, at) => {
          expressions.push({ path: [...rulePath, 'overrides', at, 'when'], source: override.when });
          if (override.condition !== undefined) expressions.push({ path: [...rulePath, 'overrides', at, 'condition'], source: override.condition });
        });
        for (const expression of expressions) {
          for (const read of unknownReads(trigger, lang, expression.source)) {
            warnings.push({
              kind: 'unknown-field',
              subject,
              path: expression.path,
              ...(read.offset === undefined ? {} : { offset: read.offset }),
              message: `${subject} can never match: it reads ${read.field}, which the ${trigger} context never has`,
            });
          }
        }
        const shadow = shadows[ruleIndex];
        if (shadow !== undefined) {
          const earlier = `${trigger}/${oracle.name}/${ruleName(rules[shadow] as HookRule, shadow)}`;
          const why = (rules[shadow] as HookRule).condition.trim() === 'true' ? 'its condition is always true' : 'its condition is the same';
          const effect = (oracle.match ?? 'all') === 'first' ? 'the oracle answers with its first match (match: first)' : 'it always blocks';
          warnings.push({
            kind: 'shadowed-rule',
            subject,
            path: [...rulePath, 'condition'],
            message: `${subject} is shadowed by the earlier rule ${earlier} (${why}, and ${effect}): it can never decide anything`,
          });
        }
      });
    });
  }
  // Located one by one: each keeps its kind and subject, and no cap applies to warnings.
  return warnings.map(({ kind, subject, ...raw }) => {
    const [issue] = locateAll(located, [raw]);
    return { ...(issue as ConfigIssue), kind, subject };
  });
}

/** A rule's id as the engine records it: its `id`, else `rules[<index>]`. */
function ruleName(rule: HookRule, index: number): string {
  return rule.id ?? `rules[${index}]`;
}

// ---------------------------------------------------------------------------------------------
// never-denies

/** Whether an oracle entry might block or ask for approval. Unknown implementations might. */
function oracleMayDeny(oracle: HookOracle, plugins: ReadonlySet<string>): boolean {
  const implementation = oracle.use ?? oracle.name;
  if (implementation !== 'rules') {
    if (plugins.has(implementation)) return true;
    const builtin = BUILTIN_ORACLES.get(implementation);
    // A built-in with logic of its own (permission-check, circuit-breaker) can block by itself;
    // one that is only its rules (the quality gates) with no rules of the entry uses its defaults.
    if (builtin !== undefined && (builtin.create !== undefined || oracle.rules === undefined)) return true;
    // An unknown name with `use` unset would not have compiled; treat anything else as rules-only.
  }
  return (oracle.rules ?? []).some(ruleMayDeny);
}

function ruleMayDeny(rule: HookRule): boolean {
  if (rule.require_approval !== undefined) return true;
  const variants: Pick<HookRule, 'intensity' | 'escalation'>[] = [rule, ...(rule.overrides ?? [])];
  return variants.some((variant) => variant.intensity === 'block' || (variant.escalation !== undefined && escalationSteps(variant.escalation).includes('block')));
}

// ---------------------------------------------------------------------------------------------
// unknown-field

const RESERVED: ReadonlySet<string> = new Set(RESERVED_NAMES.filter((name) => name !== 'context'));

interface FieldRead {
  /** The path as written, without a leading `context.` (e.g. `tool.input.command`). */
  readonly path: readonly string[];
  /** Offset of the read in the expression, when known. */
  readonly offset?: number;
}

/** The reads of `source` that the trigger's context can never satisfy, each named by its longest impossible prefix. */
function unknownReads(trigger: HookTrigger, lang: 'ahp' | 'cel', source: string): { field: string; offset?: number }[] {
  const reads = lang === 'cel' ? celReads(source) : nativeReads(source);
  if (reads === undefined) return [];
  const out = new Map<string, { field: string; offset?: number }>();
  for (const read of reads) {
    const depth = impossibleDepth(HOOK_CONTEXT_SCHEMAS[trigger], read.path);
    if (depth === undefined) continue;
    const field = read.path.slice(0, depth).join('.');
    if (!out.has(field)) out.set(field, { field: read.path.join('.'), ...(read.offset === undefined ? {} : { offset: read.offset }) });
  }
  return [...out.values()];
}

/**
 * The number of segments after which `path` leaves `schema` (1 for an unknown top-level field), or
 * undefined when the path may exist: the walk stops, saying nothing, at anything but a strict
 * object (a free-form area, a union, a list).
 */
function impossibleDepth(schema: z.ZodType, path: readonly string[]): number | undefined {
  let current: z.ZodType = schema;
  for (let at = 0; at < path.length; at += 1) {
    current = unwrap(current);
    if (!(current instanceof z.ZodObject)) return undefined;
    const catchall = current._zod.def.catchall as z.ZodType | undefined;
    if (catchall === undefined || !(catchall instanceof z.ZodNever)) return undefined;
    const shape = current.shape as Record<string, z.ZodType>;
    const next = Object.hasOwn(shape, path[at] as string) ? shape[path[at] as string] : undefined;
    if (next === undefined) return at + 1;
    current = next;
  }
  return undefined;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** Field reads of a native expression: variable and member chains (an index ends the chain). Undefined when it does not parse. */
function nativeReads(source: string): FieldRead[] | undefined {
  let root: Node;
  try {
    root = parseNative(source);
  } catch {
    return undefined;
  }
  const reads: FieldRead[] = [];
  const chain = (node: Node): string[] | undefined => {
    if (node.type === 'var') return [node.name];
    if (node.type === 'member') {
      const base = chain(node.object);
      return base === undefined ? undefined : [...base, node.key];
    }
    return undefined;
  };
  const visit = (node: Node): void => {
    const path = chain(node);
    if (path !== undefined) {
      addRead(reads, path, node.start);
      return;
    }
    switch (node.type) {
      case 'member':
        visit(node.object);
        return;
      case 'index':
        visit(node.object);
        visit(node.index);
        return;
      case 'list':
        node.items.forEach(visit);
        return;
      case 'call':
        node.args.forEach(visit);
        return;
      case 'not':
        visit(node.operand);
        return;
      case 'logical':
        node.operands.forEach(visit);
        return;
      case 'compare':
        visit(node.left);
        visit(node.right);
        return;
      default:
        return;
    }
  };
  visit(root);
  return reads;
}

/** Adds a read of the context (reserved names other than `context` are not the context; `context.x` is `x`). */
function addRead(reads: FieldRead[], path: readonly string[], offset: number | undefined): void {
  if (path[0] === undefined || RESERVED.has(path[0])) return;
  const normal = path[0] === 'context' ? path.slice(1) : path;
  if (normal.length > 0) reads.push({ path: normal, ...(offset === undefined ? {} : { offset }) });
}

/** A node of CEL's parsed tree, as far as the walk looks at it. */
interface CelNode {
  id?: bigint | string | number;
  exprKind?: { case?: string; value?: Record<string, unknown> };
}

/**
 * Field reads of a CEL expression: identifier and select chains (`has()` included). Names bound by
 * comprehensions (`exists(t, …)`'s `t`, the accumulator) are not context reads; if any such
 * name collides with a context field, the expression is not analysed. Undefined when it does not parse.
 */
function celReads(source: string): FieldRead[] | undefined {
  let parsed: ReturnType<typeof parseCel>;
  try {
    parsed = parseCel(source);
  } catch {
    return undefined;
  }
  const positions = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  const bound = new Set<string>();
  const collectBound = (node: CelNode | undefined): void => {
    if (node === undefined || node === null || typeof node !== 'object') return;
    const value = node.exprKind?.value ?? {};
    if (node.exprKind?.case === 'comprehensionExpr') {
      for (const name of [value['iterVar'], value['iterVar2'], value['accuVar']]) if (typeof name === 'string' && name !== '') bound.add(name);
    }
    forEachChild(node, collectBound);
  };
  collectBound(parsed.expr as unknown as CelNode);
  const reads: FieldRead[] = [];
  const chain = (node: CelNode | undefined): string[] | undefined => {
    const value = node?.exprKind?.value ?? {};
    if (node?.exprKind?.case === 'identExpr') return [value['name'] as string];
    if (node?.exprKind?.case === 'selectExpr') {
      const base = chain(value['operand'] as CelNode);
      return base === undefined ? undefined : [...base, value['field'] as string];
    }
    return undefined;
  };
  const visit = (node: CelNode | undefined): void => {
    if (node === undefined || node === null || typeof node !== 'object') return;
    const path = chain(node);
    if (path !== undefined) {
      if (!bound.has(path[0] as string)) addRead(reads, path, offsetOf(positions, rootOf(node)));
      return;
    }
    forEachChild(node, visit);
  };
  visit(parsed.expr as unknown as CelNode);
  return reads;
}

/** The identifier at the start of a select chain (its position is the start of the read). */
function rootOf(node: CelNode): CelNode {
  let current = node;
  while (current.exprKind?.case === 'selectExpr') current = (current.exprKind.value?.['operand'] as CelNode | undefined) ?? current;
  return current;
}

function offsetOf(positions: Record<string, number>, node: CelNode | undefined): number | undefined {
  if (node?.id === undefined) return undefined;
  const at = positions[String(node.id)];
  return typeof at === 'number' ? at : undefined;
}

function forEachChild(node: CelNode, visit: (child: CelNode) => void): void {
  for (const child of Object.values(node.exprKind?.value ?? {})) {
    if (Array.isArray(child)) child.forEach((item) => visit(item as CelNode));
    else if (typeof child === 'object' && child !== null) visit(child as CelNode);
  }
}

// ---------------------------------------------------------------------------------------------
// shadowed-rule

/**
 * For each rule, the index of an earlier rule that always decides before it could, or undefined;
 * linear in the number of rules (an oracle may have 10 000). The earlier rule has no overrides (an
 * override may change its condition or intensity by context) and a condition that is `true` or
 * normalises to the later rule's (same language and params; the later rule has no override that
 * changes its condition or params).
 */
function shadowingRules(rules: readonly HookRule[], match: 'all' | 'first', fileLang: HooksConfig['lang']): (number | undefined)[] {
  let alwaysFirst: number | undefined;
  /** Normal form (with language and params) → the first decisive rule with it. */
  const firstWith = new Map<string, number>();
  return rules.map((rule, index) => {
    const lang = rule.lang ?? fileLang ?? 'ahp';
    const form = normalForm(lang, rule.condition);
    const key = form === undefined ? undefined : `${form}\u0000${JSON.stringify(sortKeys(rule.params ?? {}))}`;
    const conditionFixed = !(rule.overrides ?? []).some((override) => override.condition !== undefined || override.params !== undefined);
    const shadow = alwaysFirst ?? (key !== undefined && conditionFixed ? firstWith.get(key) : undefined);
    if ((rule.overrides ?? []).length === 0 && decisive(rule, match) && form !== undefined && key !== undefined) {
      if (alwaysFirst === undefined && form === normalForm(lang, 'true')) alwaysFirst = index;
      if (!firstWith.has(key)) firstWith.set(key, index);
    }
    return shadow;
  });
}

/**
 * Whether a matching rule always decides the oracle's answer: under `match: first` any rule
 * (only the first match answers); under `match: all` a rule that always blocks (block is the
 * strongest intensity, and a block without approval ends the hook).
 */
function decisive(rule: HookRule, match: 'all' | 'first'): boolean {
  if (match === 'first') return true;
  return rule.require_approval === undefined && rule.escalation === undefined && rule.intensity === 'block';
}

/** The condition's syntax tree without positions, as text: equal for conditions that differ only in spacing. */
function normalForm(lang: 'ahp' | 'cel', source: string): string | undefined {
  try {
    if (lang === 'ahp') {
      return `ahp:${JSON.stringify(parseNative(source), (key, value: unknown) => (key === 'start' || key === 'end' || key === 'keyStart' || key === 'opStart' ? undefined : value))}`;
    }
    return `cel:${JSON.stringify(parseCel(source).expr, (key, value: unknown) => (key === 'id' ? undefined : typeof value === 'bigint' ? String(value) : value))}`;
  } catch {
    return undefined;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}
