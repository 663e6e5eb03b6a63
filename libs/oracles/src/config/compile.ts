/**
 * Compiling a hooks configuration, once per version: every oracle entry resolved (built-in,
 * plugin or rules-only), every expression and template compiled, every built-in's options
 * validated. The result evaluates hooks without parsing anything.
 */
import { HooksConfigSchema, aggregateSignals, isIntensityAllowed } from '@ahp/protocol';
import type { FailurePolicy, HookDecision, HookOracle, HookRule, HookTrigger, HooksConfig } from '@ahp/protocol';
import { BUILTIN_ORACLES } from '../builtins/index.js';
import { BuiltinOptionsError, composeOracles } from '../builtins/permission.js';
import type { BuiltinOracleDefinition } from '../builtins/types.js';
import type { Value } from '../expression/values.js';
import { evaluateHook } from '../evaluate.js';
import type { OracleRunReport, OracleSettings } from '../evaluate.js';
import { oracleAppliesTo, oracleShapeProblem } from '../oracle.js';
import type { Oracle, OracleInput } from '../oracle.js';
import { compileRule } from '../rules/compile-rule.js';
import type { CompiledRule, RuleExtras } from '../rules/compile-rule.js';
import type { RuleCounters } from '../rules/counters.js';
import { createRuleOracle } from '../rules/rule-oracle.js';
import { ConfigCompileError } from './issues.js';
import type { PathSegment, RawIssue } from './issues.js';
import { fromZodIssue, locateAll } from './parse.js';

/** Time each oracle gets when neither the configuration nor the caller says: the worker's default. */
export const DEFAULT_ORACLE_BUDGET_MS = 2_000;

/** What {@link CompiledHooks.evaluate} needs besides the hook. */
export interface EvaluationDeps {
  /** The clock for timestamps and the deadline. */
  now: () => Date;
  /** A fresh UUID per call (signal ids). */
  newId: () => string;
  /** Progressive intervention and circuit-breaker counters (Redis in workers, memory in tests). */
  counters: RuleCounters;
  /** Absolute deadline of the hook, epoch ms on the `now` clock; no oracle runs past it. */
  deadlineAt?: number;
  /** Time each oracle gets unless the configuration sets `budget_ms`. @defaultValue {@link DEFAULT_ORACLE_BUDGET_MS} */
  budgetMs?: number;
  /** Called after each oracle run (logs, metrics); must not throw. */
  onOracleSettled?: (report: OracleRunReport) => void;
  /** See `EvaluateHookOptions.inputIsOwned`. @defaultValue false */
  inputIsOwned?: boolean;
}

/** A configuration version, compiled. */
export interface CompiledHooks {
  readonly version: number;
  /** The triggers that have a hook, in configuration order. */
  readonly triggers: readonly HookTrigger[];
  /**
   * Evaluates one hook: its oracles in configured order, under their budgets and failure
   * policies; the decision carries `config_version` and each signal names its rule and the
   * version. A trigger without a configured hook is allowed with no signals
   * (`decided_by: 'oracles'`). Never rejects for anything an oracle does.
   */
  evaluate(input: OracleInput, deps: EvaluationDeps): Promise<HookDecision>;
}

/** Options of {@link compileHooksConfig}. */
export interface CompileHooksOptions {
  /** The configuration version (0 for one not yet published). */
  version: number;
  /** Oracles written in TypeScript, which the configuration can name. */
  plugins?: readonly Oracle[];
  /**
   * Index each oracle's rules (rules/rule-index.ts). `false` evaluates every rule in turn: the
   * reference the differential tests and the bench compare against. @defaultValue true
   */
  indexRules?: boolean;
}

interface CompiledHook {
  readonly oracles: readonly Oracle[];
  readonly settings: ReadonlyMap<Oracle, OracleSettings>;
  readonly failurePolicy: FailurePolicy | undefined;
  readonly budgetMs: number | undefined;
}

/** The compiler's answer before it is located or thrown. */
export type CompileOutcome = { ok: true; compiled: CompiledHooks } | { ok: false; issues: RawIssue[] };

/**
 * Compiles a configuration (e.g. a stored version). The value is validated with
 * `HooksConfigSchema` first, so an unchecked stored value is safe to pass.
 *
 * @throws {@link ConfigCompileError} with every issue found (`line`/`column` 0: there is no text).
 */
export function compileHooksConfig(config: HooksConfig, options: CompileHooksOptions): CompiledHooks {
  const checked = HooksConfigSchema.safeParse(config);
  if (!checked.success) {
    throw new ConfigCompileError(locateAll(undefined, checked.error.issues.flatMap((issue) => fromZodIssue(issue, []))));
  }
  const outcome = compileChecked(checked.data, options);
  if (!outcome.ok) throw new ConfigCompileError(locateAll(undefined, outcome.issues));
  return outcome.compiled;
}

/** Compiles a configuration that already passed `HooksConfigSchema`. */
export function compileChecked(config: HooksConfig, options: CompileHooksOptions): CompileOutcome {
  const issues: RawIssue[] = [];
  if (!Number.isSafeInteger(options.version) || options.version < 0) {
    throw new RangeError(`compileHooksConfig: version must be a non-negative integer, got ${options.version}`);
  }
  const plugins = checkPlugins(options.plugins ?? [], issues);
  const hooks = new Map<HookTrigger, CompiledHook>();
  for (const [key, hook] of Object.entries(config.hooks)) {
    const trigger = key as HookTrigger;
    const oracles: Oracle[] = [];
    const settings = new Map<Oracle, OracleSettings>();
    hook.oracles.forEach((entry, index) => {
      const oracle = compileEntry(entry, {
        trigger,
        path: ['hooks', key, 'oracles', index],
        issues,
        plugins,
        defaultEnvironment: config.environment,
        indexRules: options.indexRules ?? true,
        lang: config.lang,
      });
      if (oracle === undefined || entry.enabled === false) return;
      oracles.push(oracle);
      const own: { -readonly [K in keyof OracleSettings]: OracleSettings[K] } = {};
      if (entry.budget_ms !== undefined) own.budgetMs = entry.budget_ms;
      if (entry.failure_policy !== undefined) own.failurePolicy = entry.failure_policy;
      if (Object.keys(own).length > 0) settings.set(oracle, own);
    });
    hooks.set(trigger, Object.freeze({ oracles, settings, failurePolicy: hook.failure_policy, budgetMs: hook.budget_ms }));
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, compiled: createCompiledHooks(options.version, hooks) };
}

function createCompiledHooks(version: number, hooks: ReadonlyMap<HookTrigger, CompiledHook>): CompiledHooks {
  return Object.freeze({
    version,
    triggers: Object.freeze([...hooks.keys()]),
    async evaluate(input: OracleInput, deps: EvaluationDeps): Promise<HookDecision> {
      const hook = hooks.get(input.trigger);
      if (hook === undefined) {
        return aggregateSignals({ hookId: input.hookId, trigger: input.trigger, signals: [], now: deps.now().toISOString(), configVersion: version });
      }
      return evaluateHook({
        input,
        oracles: hook.oracles,
        now: deps.now,
        newId: deps.newId,
        budgetMs: hook.budgetMs ?? deps.budgetMs ?? DEFAULT_ORACLE_BUDGET_MS,
        ...(hook.failurePolicy === undefined ? {} : { failurePolicy: hook.failurePolicy }),
        configVersion: version,
        ...(deps.deadlineAt === undefined ? {} : { deadlineAt: deps.deadlineAt }),
        counters: deps.counters,
        oracleSettings: (oracle) => hook.settings.get(oracle),
        ...(deps.onOracleSettled === undefined ? {} : { onOracleSettled: deps.onOracleSettled }),
        ...(deps.inputIsOwned === undefined ? {} : { inputIsOwned: deps.inputIsOwned }),
      });
    },
  });
}

function checkPlugins(plugins: readonly Oracle[], issues: RawIssue[]): ReadonlyMap<string, Oracle> {
  const byName = new Map<string, Oracle>();
  plugins.forEach((plugin, index) => {
    const problem = oracleShapeProblem(plugin);
    if (problem !== undefined) {
      issues.push({ path: [], message: `plugin oracle #${index + 1} is not an oracle: ${problem}`, at: 'none' });
      return;
    }
    if (BUILTIN_ORACLES.has(plugin.name) || plugin.name === 'rules') {
      issues.push({ path: [], message: `plugin oracle "${plugin.name}" has the name of a built-in; rename the plugin`, at: 'none' });
      return;
    }
    if (byName.has(plugin.name)) {
      issues.push({ path: [], message: `two plugin oracles are named "${plugin.name}"`, at: 'none' });
      return;
    }
    byName.set(plugin.name, plugin);
  });
  return byName;
}

interface EntrySetup {
  readonly trigger: HookTrigger;
  readonly path: readonly PathSegment[];
  readonly issues: RawIssue[];
  readonly plugins: ReadonlyMap<string, Oracle>;
  readonly defaultEnvironment: string | undefined;
  readonly indexRules: boolean;
  readonly lang: HooksConfig['lang'];
}

type Implementation =
  | { kind: 'builtin'; definition: BuiltinOracleDefinition<unknown> }
  | { kind: 'plugin'; oracle: Oracle }
  | { kind: 'rules' };

function resolve(entry: HookOracle, setup: EntrySetup): Implementation | undefined {
  const { path, issues, plugins } = setup;
  const known = () =>
    `built-in: ${[...BUILTIN_ORACLES.keys()].join(', ')}; plugins: ${plugins.size === 0 ? 'none loaded' : [...plugins.keys()].join(', ')}`;
  if (entry.use !== undefined) {
    if (entry.use === 'rules') return { kind: 'rules' };
    const definition = BUILTIN_ORACLES.get(entry.use);
    if (definition !== undefined) return { kind: 'builtin', definition };
    const plugin = plugins.get(entry.use);
    if (plugin !== undefined) return { kind: 'plugin', oracle: plugin };
    issues.push({ path: [...path, 'use'], message: `unknown oracle "${entry.use}" (${known()}; or "rules" for rules only)` });
    return undefined;
  }
  const definition = BUILTIN_ORACLES.get(entry.name);
  if (definition !== undefined) return { kind: 'builtin', definition };
  const plugin = plugins.get(entry.name);
  if (plugin !== undefined) return { kind: 'plugin', oracle: plugin };
  if (entry.rules === undefined || entry.rules.length === 0) {
    issues.push({ path: [...path, 'name'], message: `unknown oracle "${entry.name}": not a built-in oracle or a loaded plugin, and it has no rules (${known()})` });
    return undefined;
  }
  const near = [...BUILTIN_ORACLES.keys(), ...plugins.keys()].find((name) => editDistance(name, entry.name) <= 2);
  if (near !== undefined) {
    issues.push({
      path: [...path, 'name'],
      message: `"${entry.name}" is not an oracle; did you mean "${near}"? (for a rules-only oracle with this name, add \`use: rules\`)`,
    });
    return undefined;
  }
  return { kind: 'rules' };
}

function compileEntry(entry: HookOracle, setup: EntrySetup): Oracle | undefined {
  const { trigger, path, issues } = setup;
  const implementation = resolve(entry, setup);
  if (implementation === undefined) return undefined;
  const where = entry.use === undefined ? 'name' : 'use';

  if (implementation.kind === 'plugin') {
    const plugin = implementation.oracle;
    if (entry.options !== undefined) {
      issues.push({ path: [...path, 'options'], message: `plugin oracle "${plugin.name}" takes no options here; configure it in its module` });
    }
    if (!oracleAppliesTo(plugin, trigger)) {
      issues.push({ path: [...path, where], message: `plugin oracle "${plugin.name}" does not run at ${trigger} (its triggers: ${plugin.triggers?.join(', ')})` });
      return undefined;
    }
    const rules = compileRules(entry, entry.rules ?? [], setup, undefined);
    if (rules === undefined) return undefined;
    const renamed: Oracle = { name: entry.name, triggers: [trigger], evaluate: (input, ctx) => plugin.evaluate(input, ctx) };
    return rules.length === 0 ? renamed : composeOracles(entry.name, [renamed, ruleOracle(entry, rules, setup, undefined)]);
  }

  if (implementation.kind === 'rules') {
    if (entry.options !== undefined) {
      issues.push({ path: [...path, 'options'], message: 'a rules-only oracle takes no options (use params on its rules)' });
    }
    const rules = compileRules(entry, entry.rules ?? [], setup, undefined);
    return rules === undefined ? undefined : ruleOracle(entry, rules, setup, undefined);
  }

  const { definition } = implementation;
  if (!definition.triggers.includes(trigger)) {
    issues.push({ path: [...path, where], message: `built-in oracle "${definition.name}" does not run at ${trigger} (it runs at: ${definition.triggers.join(', ')})` });
    return undefined;
  }
  const parsed = definition.options.safeParse(entry.options ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues.push(...fromZodIssue(issue, [...path, 'options']));
    return undefined;
  }
  const options = parsed.data;
  if (!definition.acceptsRules && entry.rules !== undefined) {
    issues.push({ path: [...path, 'rules'], message: `built-in oracle "${definition.name}" takes options, not rules` });
    return undefined;
  }
  let ruleList: HookRule[] = entry.rules ?? [];
  const fromDefaults = entry.rules === undefined && definition.defaultRules !== undefined;
  if (fromDefaults) {
    ruleList = (definition.defaultRules?.(options) ?? []).filter((rule) => rule.intensity === undefined || isIntensityAllowed(trigger, rule.intensity));
  }
  const extras = definition.extras?.(options);
  const rules = compileRules(entry, ruleList, fromDefaults ? { ...setup, path: [...path, 'options'] } : setup, extras);
  if (rules === undefined) return undefined;
  const rulesOracle = rules.length === 0 ? undefined : ruleOracle(entry, rules, setup, definition.facts?.(options));
  if (definition.create === undefined) return rulesOracle ?? ruleOracle(entry, [], setup, undefined);
  try {
    return definition.create({ name: entry.name, trigger, options, rules: rulesOracle });
  } catch (error) {
    if (!(error instanceof BuiltinOptionsError)) throw error;
    issues.push({ path: [...path, 'options'], message: error.message });
    return undefined;
  }
}

function compileRules(entry: HookOracle, rules: readonly HookRule[], setup: EntrySetup, extras: RuleExtras | undefined): CompiledRule[] | undefined {
  const before = setup.issues.length;
  const compiled: CompiledRule[] = [];
  rules.forEach((rule, index) => {
    const result = compileRule(rule, index, {
      oracle: entry.name,
      trigger: setup.trigger,
      path: entry.rules === rules ? [...setup.path, 'rules', index] : [...setup.path],
      issues: setup.issues,
      ...(extras === undefined ? {} : { extras }),
      ...(setup.lang === undefined ? {} : { lang: setup.lang }),
    });
    if (result !== undefined) compiled.push(result);
  });
  return setup.issues.length > before ? undefined : compiled;
}

function ruleOracle(entry: HookOracle, rules: readonly CompiledRule[], setup: EntrySetup, facts: ((context: Value) => Value) | undefined): Oracle {
  return createRuleOracle({
    name: entry.name,
    trigger: setup.trigger,
    rules,
    match: entry.match ?? 'all',
    indexed: setup.indexRules,
    ...(setup.defaultEnvironment === undefined ? {} : { defaultEnvironment: setup.defaultEnvironment }),
    ...(facts === undefined ? {} : { facts }),
  });
}

/** Levenshtein distance, for "did you mean" on oracle names (short strings only). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
