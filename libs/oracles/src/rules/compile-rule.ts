/**
 * Compiling one `hooks.yaml` rule: its expressions and templates, its context overrides and its
 * escalation ladder, into closures that build validated signal payloads. Runs once per
 * configuration version; problems are collected (with the field path and, for expressions, the
 * offset inside the string) instead of thrown, so one pass reports them all.
 */
import { APPROVAL_SIGNAL_TYPES, DEFAULT_APPROVAL_DEADLINE_MS, FORBIDDEN_KEYS, durationToMs, escalationSteps } from '@ahp/protocol';
import type {
  ApprovalRequirement,
  HookAction,
  HookExpressionLang,
  HookEscalation,
  HookRule,
  HookSuggestion,
  HookTrigger,
  Intensity,
  JsonObject,
  JsonValue,
  Severity,
  SignalPayload,
} from '@ahp/protocol';
import { compileCelExpression } from '../expression/cel.js';
import { compileExpression } from '../expression/compile.js';
import type { CompiledExpression, ExpressionScope } from '../expression/compile.js';
import { ExpressionError } from '../expression/errors.js';
import { compileTemplate } from '../expression/template.js';
import type { CompiledTemplate } from '../expression/template.js';
import { member } from '../expression/values.js';
import type { Value } from '../expression/values.js';
import type { PathSegment, RawIssue } from '../config/issues.js';

/** How long violations are remembered without a new one, unless the escalation says otherwise: 24 hours. */
export const DEFAULT_ESCALATION_TTL_MS = 24 * 3_600_000;

/** Builds the payload of a signal of one intensity. Never throws. */
export type PayloadBuilder = (scope: ExpressionScope) => SignalPayload;

/** One way a rule can apply: its own fields (the last variant), or an override's merged over them. */
export interface CompiledVariant {
  /** Index of the override in `overrides`; `undefined` for the rule itself. */
  readonly override: number | undefined;
  /** The override's `when`; `undefined` for the rule itself, which applies when no override does. */
  readonly when: CompiledExpression | undefined;
  readonly condition: CompiledExpression;
  readonly params: Readonly<JsonObject>;
  /** The intensity of the 1st, 2nd… consecutive violation; one step when the rule does not escalate. */
  readonly ladder: readonly Intensity[];
  readonly ttlMs: number;
  readonly type: string | undefined;
  readonly payload: Readonly<Partial<Record<Intensity, PayloadBuilder>>>;
  /** Set for a rule with `require_approval`: its one payload is the `block` that asks for approval. */
  readonly approval?: ApprovalRequirement;
}

/** A compiled rule. */
export interface CompiledRule {
  /** The rule's id (`id`, or `rules[<index>]`): the signal's `context.rule`. */
  readonly id: string;
  /** Key of its escalation counter: `<trigger>/<oracle>/<id>`. */
  readonly key: string;
  /** Whether violations are counted: some variant escalates. */
  readonly counted: boolean;
  /** Overrides in order, then the rule itself. */
  readonly variants: readonly CompiledVariant[];
  /** The rule's own params, which `when` expressions see. */
  readonly baseParams: Readonly<JsonObject>;
}

/** What a built-in oracle adds to the payloads of its rules. */
export interface RuleExtras {
  /** Resolution steps for a block whose rule gives no `resolution_path` (e.g. the incomplete checklist items). */
  readonly resolutionSteps?: (scope: ExpressionScope) => string[];
}

/** Where a rule is compiled. */
export interface RuleCompileSetup {
  readonly oracle: string;
  readonly trigger: HookTrigger;
  /** Path of the rule in the configuration, e.g. `['hooks', 'pre-issue-submit', 'oracles', 0, 'rules', 1]`. */
  readonly path: readonly PathSegment[];
  readonly issues: RawIssue[];
  readonly extras?: RuleExtras;
  /** The file's condition language (`lang`); a rule's own `lang` wins. @defaultValue `ahp` */
  readonly lang?: HookExpressionLang;
}

const MAX_TEXT = 16 * 1024;

type RuleFields = Omit<HookRule, 'id' | 'description' | 'overrides'>;

/** Compiles `rule`, the `index`-th of its oracle. Returns `undefined` (with issues recorded) when it cannot be compiled. */
export function compileRule(rule: HookRule, index: number, setup: RuleCompileSetup): CompiledRule | undefined {
  const id = rule.id ?? `rules[${index}]`;
  const lang = rule.lang ?? setup.lang ?? 'ahp';
  setup = { ...setup, lang };
  const issuesBefore = setup.issues.length;
  const cache = new Map<string, unknown>();
  const ruleTtlMs = ttlOf(rule.escalation) ?? DEFAULT_ESCALATION_TTL_MS;
  const base = compileVariant(rule, rule, undefined, id, setup, cache, ruleTtlMs);
  const variants: CompiledVariant[] = [];
  rule.overrides?.forEach((override, overrideIndex) => {
    const { when, ...fields } = override;
    const merged: RuleFields = {
      ...withoutUndefined(rule),
      ...withoutUndefined(fields),
      condition: fields.condition ?? rule.condition,
      params: { ...(rule.params ?? {}), ...(fields.params ?? {}) },
      ...ladderFields(fields.intensity !== undefined || fields.escalation !== undefined ? fields : rule),
    };
    const at = [...setup.path, 'overrides', overrideIndex];
    const whenExpression = expression(when, [...at, 'when'], setup, cache, lang);
    const variant = compileVariant(merged, fields, overrideIndex, id, { ...setup, path: at }, cache, ruleTtlMs);
    if (variant !== undefined && whenExpression !== undefined) variants.push({ ...variant, when: whenExpression });
  });
  if (base === undefined || setup.issues.length > issuesBefore) return undefined;
  variants.push(base);
  return Object.freeze({
    id,
    key: `${setup.trigger}/${setup.oracle}/${id}`,
    counted: variants.some((v) => v.ladder.length > 1),
    variants: Object.freeze(variants),
    baseParams: rule.params ?? {},
  });
}

/** The `ttl` of an escalation in milliseconds, when it gives one. */
function ttlOf(escalation: HookEscalation | undefined): number | undefined {
  if (escalation === undefined || Array.isArray(escalation)) return undefined;
  const ttl = (escalation as { ttl?: unknown }).ttl;
  return ttl === undefined ? undefined : durationToMs(ttl);
}

function ladderFields(source: { intensity?: Intensity | undefined; escalation?: HookEscalation | undefined }): Pick<RuleFields, 'intensity' | 'escalation'> {
  return { intensity: source.intensity, escalation: source.escalation };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Compiles the effective fields of one variant. `own` holds the fields written at this place
 * (the rule itself, or the override), so a problem in an inherited field is reported once, at
 * the rule.
 */
function compileVariant(
  fields: RuleFields,
  own: Partial<RuleFields>,
  override: number | undefined,
  id: string,
  setup: RuleCompileSetup,
  cache: Map<string, unknown>,
  inheritedTtlMs: number,
): (Omit<CompiledVariant, 'when'> & { when: undefined }) | undefined {
  const at = (field: string, ...rest: PathSegment[]): PathSegment[] =>
    own[field as keyof RuleFields] !== undefined ? [...setup.path, field, ...rest] : [...rulePath(setup.path, override), field, ...rest];
  const condition = expression(fields.condition, at('condition'), setup, cache, setup.lang ?? 'ahp');
  if (fields.require_approval !== undefined) {
    const approval = compileApproval(fields.require_approval, [...rulePath(setup.path, override), 'require_approval'], id, setup, cache);
    if (condition === undefined || approval === undefined) return undefined;
    return { override, when: undefined, condition, params: fields.params ?? {}, ladder: ['block'], ttlMs: inheritedTtlMs, type: fields.type ?? APPROVAL_SIGNAL_TYPES.required, ...approval };
  }
  const ladder = fields.intensity !== undefined ? [fields.intensity] : fields.escalation !== undefined ? escalationSteps(fields.escalation) : [];
  const ttlMs = ttlOf(fields.escalation) ?? inheritedTtlMs;

  const message = fields.message === undefined ? undefined : template(fields.message, at('message'), setup, cache);
  const suggestions = (fields.suggestions ?? []).map((s, i) => suggestion(s, at('suggestions', i), setup, cache));
  const steps = fields.resolution_path?.map((s, i) => template(s, at('resolution_path', i), setup, cache));
  const action = fields.action === undefined ? undefined : compileAction(fields.action, at('action'), setup, cache);
  const fallback = `${setup.oracle}: rule "${id}" matched (${fields.condition})`.slice(0, 1000);
  const text = (scope: ExpressionScope) => {
    const rendered = message?.render(scope).trim();
    return rendered === undefined || rendered === '' ? fallback : rendered;
  };
  if (condition === undefined) return undefined;

  const payload: Partial<Record<Intensity, PayloadBuilder>> = {};
  for (const intensity of new Set(ladder)) {
    switch (intensity) {
      case 'block': {
        const resolvable = fields.resolvable ?? true;
        const extra = setup.extras?.resolutionSteps;
        payload.block = (scope) => ({
          level: 'blocking',
          decision: 'deny',
          reason: text(scope),
          resolvable,
          resolution_path: limit(steps === undefined ? (extra?.(scope) ?? []) : renderAll(steps, scope), 1000),
        });
        break;
      }
      case 'control': {
        const reversible = fields.reversible ?? true;
        if (action === undefined) break; // the schema requires an action wherever control is reachable
        payload.control = (scope) => ({
          level: 'controlling',
          decision: 'allow_with_modification',
          modifications: [action(scope, message === undefined ? undefined : text(scope))],
          reversible,
        });
        break;
      }
      case 'prompt': {
        const severity: Severity = fields.severity ?? 'medium';
        const continueAllowed = fields.continue_allowed ?? true;
        payload.prompt = (scope) => ({
          level: 'prompting',
          decision: 'warn',
          severity,
          message: text(scope),
          suggestions: limit(
            suggestions.flatMap((s) => (s === undefined ? [] : nonEmpty(s.description.render(scope)))),
            1000,
          ),
          continue_allowed: continueAllowed,
        });
        break;
      }
      case 'aid':
        payload.aid = (scope) => ({
          level: 'aiding',
          decision: 'suggest',
          context: message === undefined ? '' : text(scope),
          suggestions: limit(
            suggestions.flatMap((s) => {
              if (s === undefined) return [];
              return nonEmpty(s.description.render(scope)).map((description) => ({ type: s.type, description }));
            }),
            1000,
          ),
        });
        break;
    }
  }
  return { override, when: undefined, condition, params: fields.params ?? {}, ladder, ttlMs, type: fields.type, payload };
}

/**
 * A rule with `require_approval`: a block whose reason is the rendered message (what the operator
 * and, while it waits, the agent read), marked with the requirement the worker acts on.
 */
function compileApproval(
  options: NonNullable<HookRule['require_approval']>,
  at: PathSegment[],
  id: string,
  setup: RuleCompileSetup,
  cache: Map<string, unknown>,
): { approval: ApprovalRequirement; payload: Partial<Record<Intensity, PayloadBuilder>> } | undefined {
  const message = options.message === undefined ? undefined : template(options.message, [...at, 'message'], setup, cache);
  if (options.message !== undefined && message === undefined) return undefined;
  const approval: ApprovalRequirement = {
    deadline_ms: options.deadline === undefined ? DEFAULT_APPROVAL_DEADLINE_MS : (durationToMs(options.deadline) ?? DEFAULT_APPROVAL_DEADLINE_MS),
    on_expiry: options.on_expiry ?? 'reject',
    ...(options.prompt_fallback === undefined ? {} : { prompt_fallback: options.prompt_fallback }),
  };
  const fallback = (scope: ExpressionScope): string => {
    const tool = member(member(scope.context, 'tool'), 'name');
    return `${typeof tool === 'string' ? `this call of ${tool.slice(0, 200)}` : 'this tool call'} needs an operator's approval (rule "${id}" of ${setup.oracle})`;
  };
  const block: PayloadBuilder = (scope) => {
    const rendered = message?.render(scope).trim();
    return {
      level: 'blocking',
      decision: 'deny',
      reason: rendered === undefined || rendered === '' ? fallback(scope) : rendered.slice(0, MAX_TEXT),
      resolvable: true,
      resolution_path: [],
    };
  };
  return { approval, payload: { block } };
}

function rulePath(path: readonly PathSegment[], override: number | undefined): PathSegment[] {
  // An override's path ends with ['overrides', i]; its inherited fields live on the rule.
  return override === undefined ? [...path] : path.slice(0, -2);
}

function renderAll(templates: readonly (CompiledTemplate | undefined)[], scope: ExpressionScope): string[] {
  return templates.flatMap((t) => (t === undefined ? [] : nonEmpty(t.render(scope))));
}

function nonEmpty(text: string): string[] {
  const trimmed = text.trim();
  return trimmed === '' ? [] : [trimmed.slice(0, MAX_TEXT)];
}

function limit<T>(list: T[], max: number): T[] {
  return list.length > max ? list.slice(0, max) : list;
}

// --- actions ---------------------------------------------------------------------------------

type ActionBuilder = (scope: ExpressionScope, reason: string | undefined) => {
  target: string;
  original: JsonValue;
  updated: JsonValue;
  reason: string;
};

function compileAction(action: HookAction, at: PathSegment[], setup: RuleCompileSetup, cache: Map<string, unknown>): ActionBuilder | undefined {
  if (action.type === 'split_suggestion') {
    const count = expression(action.count ?? 'files.changed_count', action.count === undefined ? at : [...at, 'count'], setup, cache);
    if (count === undefined) return undefined;
    const maxBatch = action.max_batch;
    const target = action.target ?? 'max_batch';
    return (scope, reason) => {
      const value = count.evaluate(scope);
      const n = typeof value === 'number' ? value : null;
      const batches = n === null ? '' : `, ${n} → ${Math.max(1, Math.ceil(n / maxBatch))} batches`;
      const split = `split_suggestion: at most ${maxBatch} per batch${batches}`;
      return { target, original: n, updated: maxBatch, reason: reason === undefined ? split : `${reason} (${split})` };
    };
  }
  // set
  const target = action.target;
  const value = action.value;
  let original: (scope: ExpressionScope) => Value;
  if (action.original !== undefined) {
    const compiled = expression(action.original, [...at, 'original'], setup, cache);
    if (compiled === undefined) return undefined;
    original = (scope) => compiled.evaluate(scope);
  } else {
    const segments = [...(setup.trigger === 'pre-tool-use' ? ['tool', 'input'] : []), ...target.split('.')];
    const bad = segments.find((s) => s === '' || FORBIDDEN_KEYS.has(s));
    if (bad !== undefined) {
      setup.issues.push({ path: [...at, 'target'], message: `"${target}" is not a usable dotted path (segment ${JSON.stringify(bad)}); give "original" as an expression` });
      return undefined;
    }
    original = (scope) => segments.reduce<Value>((current, key) => member(current, key), scope.context);
  }
  return (scope, reason) => {
    const before = original(scope);
    return {
      target,
      original: before === undefined ? null : (before as JsonValue),
      updated: value,
      reason: reason ?? `set ${target} to ${JSON.stringify(value).slice(0, 200)}`,
    };
  };
}

// --- expressions and templates, compiled once per rule ---------------------------------------

function expression(
  source: string,
  path: PathSegment[],
  setup: RuleCompileSetup,
  cache: Map<string, unknown>,
  lang: HookExpressionLang = 'ahp',
): CompiledExpression | undefined {
  const key = `${lang === 'cel' ? 'c' : 'e'}:${source}`;
  if (cache.has(key)) return cache.get(key) as CompiledExpression | undefined;
  let compiled: CompiledExpression | undefined;
  try {
    compiled = lang === 'cel' ? compileCelExpression(source) : compileExpression(source);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    setup.issues.push({ path, message: `invalid expression: ${error.message} (at character ${error.offset + 1})`, offset: error.offset });
  }
  cache.set(key, compiled);
  return compiled;
}

function template(source: string, path: PathSegment[], setup: RuleCompileSetup, cache: Map<string, unknown>): CompiledTemplate | undefined {
  const key = `t:${source}`;
  if (cache.has(key)) return cache.get(key) as CompiledTemplate | undefined;
  let compiled: CompiledTemplate | undefined;
  try {
    compiled = compileTemplate(source);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    setup.issues.push({ path, message: `invalid template: ${error.message} (at character ${error.offset + 1})`, offset: error.offset });
  }
  cache.set(key, compiled);
  return compiled;
}

function suggestion(
  value: HookSuggestion,
  path: PathSegment[],
  setup: RuleCompileSetup,
  cache: Map<string, unknown>,
): { type: string; description: CompiledTemplate } | undefined {
  if (typeof value === 'string') {
    const description = template(value, path, setup, cache);
    return description === undefined ? undefined : { type: 'suggestion', description };
  }
  const description = template(value.description, [...path, 'description'], setup, cache);
  return description === undefined ? undefined : { type: value.type, description };
}
