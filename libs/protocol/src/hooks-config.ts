/**
 * The hooks configuration (`.ahp/hooks.yaml`, docs/spec/hooks-and-oracles.md#rules) as data: which oracles run at which
 * trigger, in which order, and the rules that turn a hook's context into signals. This module is
 * the shape and its static checks only (zod, no YAML, no expression parsing): the YAML loader
 * with line numbers, the expression language and the compiler live in `@ahp/oracles`.
 *
 * ```yaml
 * hooks:
 *   pre-issue-submit:
 *     oracles:
 *       - name: checklist-validator
 *         rules:
 *           - condition: "checklist.incomplete_count > 0"
 *             intensity: block
 *             message: "Checklist 未完成"
 * ```
 *
 * What the schema checks besides field types: every trigger key is a known trigger; every
 * intensity a rule can produce (its `intensity`, each `escalation` step, each override's) is one
 * its trigger allows (docs/spec/hooks-and-oracles.md#triggers, {@link isIntensityAllowed}); escalation ladders never weaken;
 * a rule that can produce `control` has an `action` and an `action` is never dead; `fail_closed`
 * only where the trigger may block; oracle names unique per hook, rule ids unique per oracle; a
 * rule with `require_approval` sits at `pre-tool-use`, has no intensity or signal fields of its
 * own, and its overrides change only `condition` and `params`.
 *
 * The parsed value is plain JSON and is stored as it is (no defaults are filled in, no field is
 * renamed), so a stored configuration parses again to the same value.
 */
import { z } from 'zod';
import { ModificationTargetSchema, SeveritySchema } from './decision.js';
import { INTENSITIES, IntensitySchema, compareIntensity, type Intensity } from './intensity.js';
import { JsonObjectSchema, JsonValueSchema, ShortStringSchema, TextSchema, boundedArray } from './primitives.js';
import { ApprovalOnExpirySchema, PromptFallbackSchema } from './request.js';
import { NotificationsConfigSchema } from './notifications.js';
import { SignalTypeSchema } from './signal.js';
import { TeamPoliciesSchema } from './team-policy.js';
import {
  FailurePolicySchema,
  HOOK_TRIGGERS,
  HookTriggerSchema,
  TRIGGERS,
  isIntensityAllowed,
  type HookTrigger,
} from './trigger.js';

/** Limits of a hooks configuration; the expression compiler in `@ahp/oracles` enforces the same numbers. */
export const HOOKS_CONFIG_LIMITS = Object.freeze({
  /** Characters of one expression (a condition, a `when`, one `{{ … }}` of a template). */
  maxExpressionChars: 4096,
  /** Characters of a message, suggestion or resolution step template. */
  maxTemplateChars: 4096,
  /** Oracles in one hook. */
  maxOraclesPerHook: 50,
  /**
   * Rules in one oracle. The rule engine indexes rules (an evaluation looks only at those that can
   * match), so the count bounds compile time and memory, not evaluation time: 10 000 rules compile
   * in about a second (tools/bench `rules` phase). A configuration's text is at most 1 MiB.
   */
  maxRulesPerOracle: 10_000,
  /** Context overrides of one rule. */
  maxOverridesPerRule: 20,
  /** Steps of an escalation ladder. */
  maxEscalationSteps: 8,
  /** Largest time budget of an oracle, in milliseconds. */
  maxBudgetMs: 60_000,
  /** Longest counter lifetime (`ttl`), in milliseconds: 30 days. */
  maxTtlMs: 30 * 24 * 3_600_000,
});

/** Name of an oracle as configuration and signals (`header.source`) spell it; the same rule as `ORACLE_NAME_PATTERN` of `@ahp/oracles`. */
export const HOOK_ORACLE_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*(?:[/:][a-z0-9][a-z0-9._-]*)*$/;

/** An oracle name: kebab-case words, optionally scoped with `/` or `:` (`acme/secret-scan`). */
export const HookOracleNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(HOOK_ORACLE_NAME_PATTERN, 'must be lowercase letters, digits and . _ - (scopes separated by / or :), e.g. "change-size-limiter"');

/** A rule's id inside its oracle: recorded as the signal's `context.rule`, and keys its escalation counter. */
export const HookRuleIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lowercase letters, digits and . _ - , e.g. "large-change"');

/** An expression of the hooks expression language (syntax checked by the compiler in `@ahp/oracles`). */
export const HookExpressionSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(HOOKS_CONFIG_LIMITS.maxExpressionChars)
  .meta({ id: 'HookExpression', description: 'An expression, e.g. "checklist.incomplete_count > 0 and checklist.completion_rate > 0.8".' });

/**
 * The language of rule conditions: `ahp`, the native expression language, or `cel`, the Common
 * Expression Language (https://cel.dev). Templates (`{{ … }}`) and actions are always `ahp`.
 */
export const HookExpressionLangSchema = z.enum(['ahp', 'cel']);
export type HookExpressionLang = z.infer<typeof HookExpressionLangSchema>;

/** Human text in which `{{ expression }}` is replaced by the expression's value when a signal is built. */
export const HookTemplateSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(HOOKS_CONFIG_LIMITS.maxTemplateChars)
  .meta({ id: 'HookTemplate', description: 'Text; {{ expression }} is replaced by its value, e.g. "大变更（{{ files.changed_count }} 文件）".' });

const DURATION_PATTERN = /^([1-9][0-9]{0,9})(ms|s|m|h|d)$/;
const DURATION_UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration: milliseconds as an integer, or a string with a unit (`500ms`, `30s`, `15m`, `24h`,
 * `7d`). At most {@link HOOKS_CONFIG_LIMITS}.maxTtlMs.
 */
export const HookDurationSchema = z
  .union([z.int().positive(), z.string().regex(DURATION_PATTERN, 'must be a duration such as "30s", "15m", "24h" or "7d"')])
  .refine((value) => {
    const ms = durationToMs(value);
    return ms !== undefined && ms <= HOOKS_CONFIG_LIMITS.maxTtlMs;
  }, `must be at most ${HOOKS_CONFIG_LIMITS.maxTtlMs / 86_400_000} days`)
  .meta({ id: 'HookDuration', description: 'Milliseconds, or a number with a unit: 500ms, 30s, 15m, 24h, 7d.' });
export type HookDuration = z.infer<typeof HookDurationSchema>;

/** Milliseconds of a {@link HookDuration}; `undefined` for something that is not one. */
export function durationToMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = DURATION_PATTERN.exec(value);
  if (match === null) return undefined;
  return Number(match[1]) * (DURATION_UNIT_MS[match[2] ?? ''] ?? Number.NaN);
}

/** A time budget in milliseconds, 1 to 60 000. */
export const HookBudgetMsSchema = z.int().positive().max(HOOKS_CONFIG_LIMITS.maxBudgetMs);

/**
 * An escalation ladder (docs/spec/escalation-and-context.md#progressive-intervention): the intensity of the 1st, 2nd,
 * 3rd… consecutive violation of the rule by the same agent; the last step repeats. A compliant
 * attempt (the condition is false) starts the ladder again. Shorthand: the list of steps.
 * `ttl` forgets violations after that long without a new one (default 24h).
 */
export const HookEscalationStepsSchema = z.array(IntensitySchema).min(2).max(HOOKS_CONFIG_LIMITS.maxEscalationSteps);
export const HookEscalationSchema = z
  .union([
    HookEscalationStepsSchema,
    z.strictObject({
      steps: HookEscalationStepsSchema,
      ttl: HookDurationSchema.optional(),
    }),
  ])
  .meta({ id: 'HookEscalation', description: 'Intensities of consecutive violations, e.g. [prompt, control, block]; or { steps, ttl }.' });
export type HookEscalation = z.infer<typeof HookEscalationSchema>;

/** The steps of an escalation, whichever way it is written. */
export function escalationSteps(escalation: HookEscalation): readonly Intensity[] {
  return Array.isArray(escalation) ? escalation : escalation.steps;
}

/**
 * What a `control` signal modifies (docs/spec/spectrum-and-signals.md#controlling).
 *
 * - `split_suggestion` (docs/spec/hooks-and-oracles.md#quality-gates): split the change into batches of at most `max_batch`.
 *   The modification is `{ target, original: <count>, updated: max_batch }`, where `count` is an
 *   expression (default `files.changed_count`) and `target` defaults to `max_batch`.
 * - `set`: set `target` to `value`. `original` is an expression for the current value (default:
 *   the value at `target` as a dotted path in `tool.input` at `pre-tool-use`, in the context
 *   elsewhere; `null` when absent).
 */
export const HookActionSchema = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('split_suggestion'),
      max_batch: z.int().positive().max(100_000),
      count: HookExpressionSchema.optional(),
      target: ModificationTargetSchema.optional(),
    }),
    z.strictObject({
      type: z.literal('set'),
      target: ModificationTargetSchema,
      value: JsonValueSchema,
      original: HookExpressionSchema.optional(),
    }),
  ])
  .meta({ id: 'HookAction', description: 'The modification of a control signal: split_suggestion { max_batch } or set { target, value }.' });
export type HookAction = z.infer<typeof HookActionSchema>;

/** A suggestion: text (a template), or `{ type, description }` for aid signals (`type` e.g. `follow_up`). */
export const HookSuggestionSchema = z.union([
  HookTemplateSchema,
  z.strictObject({ type: ShortStringSchema, description: HookTemplateSchema }),
]);
export type HookSuggestion = z.infer<typeof HookSuggestionSchema>;

/** Fields a rule and its overrides share: what the signal says, at which intensity, with which parameters. */
const ruleBody = {
  /** Named constants the expressions read as `params.<name>` (thresholds, limits). */
  params: JsonObjectSchema.optional(),
  /** The intensity of the signal. A rule has `intensity` or `escalation`, not both. */
  intensity: IntensitySchema.optional(),
  escalation: HookEscalationSchema.optional(),
  /** Block: the reason. Prompt: the message. Aid: the context. Control: the modification's reason. A template. */
  message: HookTemplateSchema.optional(),
  /** Signal type (kebab-case); default: the trigger's typical signal (e.g. `quality-gate`). */
  type: SignalTypeSchema.optional(),
  /** Prompt: severity (default `medium`). */
  severity: SeveritySchema.optional(),
  /** Prompt and aid: suggestions (templates). */
  suggestions: boundedArray(HookSuggestionSchema, 20).optional(),
  /** Block: steps that lift the block (templates). */
  resolution_path: boundedArray(HookTemplateSchema, 50).optional(),
  /** Block: whether the agent can fix the cause itself (default true). */
  resolvable: z.boolean().optional(),
  /** Prompt: whether the agent may continue without confirmation (default true). */
  continue_allowed: z.boolean().optional(),
  /** Control: whether the modification may be undone later (default true). */
  reversible: z.boolean().optional(),
  /** Control: what to modify. Required when the rule can produce `control`. */
  action: HookActionSchema.optional(),
};

/**
 * A context override of a rule (docs/spec/escalation-and-context.md#context-sensitivity): when `when` is true (the
 * first override whose `when` holds wins), its fields replace the rule's. `params` are merged
 * over the rule's, key by key; `intensity` or `escalation` replaces the rule's ladder.
 */
export const HookRuleOverrideSchema = z
  .strictObject({
    when: HookExpressionSchema,
    condition: HookExpressionSchema.optional(),
    ...ruleBody,
  })
  .meta({ id: 'HookRuleOverride', description: 'Replaces fields of a rule when `when` holds, e.g. env == "production".' });
export type HookRuleOverride = z.infer<typeof HookRuleOverrideSchema>;

/** How long a person has to decide a tool approval a rule asks for, unless the rule says: 15 minutes. */
export const DEFAULT_APPROVAL_DEADLINE_MS = 15 * 60_000;

/**
 * `require_approval` of a `pre-tool-use` rule: when the condition holds, the tool call waits for
 * a person's decision on a `tool_approval` request instead of being decided at once.
 *
 * - `deadline`: how long the request stays open (default {@link DEFAULT_APPROVAL_DEADLINE_MS}).
 * - `on_expiry`: what an undecided request decides at its deadline, `reject` (default) or
 *   `approve`. The request's status is `expired` either way, never `rejected`.
 * - `message`: a template shown to the operator and, while the call waits, to the agent
 *   (default: "<tool> needs an operator's approval (rule <id>)").
 * - `prompt_fallback`: when the call is an agent's permission prompt whose hook waits for the
 *   decision, what it answers if nobody decided within the hook's time: `dialog` (default, the
 *   agent's own prompt) or `deny`.
 */
export const HookApprovalSchema = z
  .strictObject({
    deadline: HookDurationSchema.optional(),
    on_expiry: ApprovalOnExpirySchema.optional(),
    message: HookTemplateSchema.optional(),
    prompt_fallback: PromptFallbackSchema.optional(),
  })
  .meta({ id: 'HookApproval', description: 'A tool call waits for a person: { deadline (15m), on_expiry (reject | approve), message, prompt_fallback (dialog | deny) }.' });
export type HookApproval = z.infer<typeof HookApprovalSchema>;

/**
 * A rule (docs/spec/hooks-and-oracles.md#rules): when `condition` holds, the oracle produces a signal of `intensity`, or,
 * with `require_approval` (only at `pre-tool-use`), asks a person to approve the tool call. A rule
 * that requires approval has no intensity of its own: its outcome is the approval.
 */
export const HookRuleSchema = z
  .strictObject({
    /** Default: `rules[<index>]`. Renaming a rule restarts its escalation ladders. */
    id: HookRuleIdSchema.optional(),
    description: TextSchema.optional(),
    condition: HookExpressionSchema,
    /** The language of `condition` and of the overrides' `when` and `condition`; default: the file's `lang`, else `ahp`. */
    lang: HookExpressionLangSchema.optional(),
    ...ruleBody,
    require_approval: HookApprovalSchema.optional(),
    overrides: boundedArray(HookRuleOverrideSchema, HOOKS_CONFIG_LIMITS.maxOverridesPerRule).optional(),
  })
  .meta({ id: 'HookRule', description: 'condition → a signal of intensity (or an escalation ladder), with message and action.' });
export type HookRule = z.infer<typeof HookRuleSchema>;

/**
 * One oracle of a hook. `name` is the signal source. The implementation is `use` when given,
 * else `name` when that names a built-in or plugin oracle; anything else is a rules-only oracle
 * (its `rules` are all it does). `use: rules` asks for a rules-only oracle explicitly.
 */
export const HookOracleSchema = z
  .strictObject({
    name: HookOracleNameSchema,
    use: HookOracleNameSchema.optional(),
    description: TextSchema.optional(),
    /** Off switch: a disabled oracle is validated but not run. Default true. */
    enabled: z.boolean().optional(),
    /** Options of a built-in oracle (see docs/hooks.md); plugins and rules-only oracles take none. */
    options: JsonObjectSchema.optional(),
    rules: boundedArray(HookRuleSchema, HOOKS_CONFIG_LIMITS.maxRulesPerOracle).optional(),
    /** `all` (default): every rule whose condition holds produces a signal. `first`: only the first one. */
    match: z.enum(['all', 'first']).optional(),
    /** What a failure of this oracle decides; default: the hook's. `fail_open` skips the oracle and goes on. */
    failure_policy: FailurePolicySchema.optional(),
    budget_ms: HookBudgetMsSchema.optional(),
  })
  .meta({ id: 'HookOracle', description: 'One oracle of a hook: a built-in, a plugin or rules only.' });
export type HookOracle = z.infer<typeof HookOracleSchema>;

/** The hook of one trigger: its oracles in evaluation order, failure policy and time budget. */
export const HookConfigSchema = z
  .strictObject({
    /** Optional, as in the original design's example; must equal the key. */
    trigger: HookTriggerSchema.optional(),
    description: TextSchema.optional(),
    /** Default: the trigger's (`fail_closed` for `pre-*`, `fail_open` elsewhere). */
    failure_policy: FailurePolicySchema.optional(),
    /** Time each oracle gets; default: the worker's budget. */
    budget_ms: HookBudgetMsSchema.optional(),
    /**
     * How long the agent has to answer a block or control signal of this hook
     * (docs/spec/spectrum-and-signals.md#unanswered-signals: both must be answered) before its next hooks of the session are refused with
     * `E_SIGNAL_UNANSWERED`. Default {@link DEFAULT_ANSWER_GRACE_MS}.
     */
    answer_grace: HookDurationSchema.optional(),
    oracles: boundedArray(HookOracleSchema, HOOKS_CONFIG_LIMITS.maxOraclesPerHook),
  })
  .meta({ id: 'HookConfig', description: 'The hook of one trigger: oracles in order, failure policy, budget.' });
export type HookConfig = z.infer<typeof HookConfigSchema>;

/** The whole `.ahp/hooks.yaml`. */
export const HooksConfigSchema = z
  .strictObject({
    /** Format version; only 1 exists. */
    version: z.literal(1).optional(),
    /** The environment of an agent whose token names none (`agent.environment`, read as `env`), e.g. `development`. */
    environment: ShortStringSchema.optional(),
    /** The language of every rule's conditions unless the rule says (`ahp` or `cel`); default `ahp`. */
    lang: HookExpressionLangSchema.optional(),
    /** Team id (or `*`) → team policy: the plan gate and the tools open while planning (team-policy.ts). */
    teams: TeamPoliciesSchema.optional(),
    /** Where people are told that a request waits for them: channels and routes (notifications.ts, docs/notifications.md). */
    notifications: NotificationsConfigSchema.optional(),
    /** Trigger → hook. Keys are checked in the refinement below (for a message naming the known triggers); the JSON Schema lists them. */
    hooks: z.record(z.string(), HookConfigSchema).meta({ propertyNames: { enum: [...HOOK_TRIGGERS] } }),
  })
  .superRefine((config, ctx) => checkHooks(config.hooks, ctx))
  .meta({ id: 'HooksConfig', description: 'The hooks configuration (.ahp/hooks.yaml): trigger → oracles → rules.' });
export type HooksConfig = z.infer<typeof HooksConfigSchema>;

/** How long an agent has to answer a block or control signal when its hook sets no `answer_grace`: 30 seconds. */
export const DEFAULT_ANSWER_GRACE_MS = 30_000;

/** The answer grace of `trigger`'s hook in `config` (milliseconds), or the default. */
export function answerGraceMs(config: Pick<HooksConfig, 'hooks'> | undefined, trigger: HookTrigger): number {
  const grace = config?.hooks[trigger]?.answer_grace;
  return (grace === undefined ? undefined : durationToMs(grace)) ?? DEFAULT_ANSWER_GRACE_MS;
}

/** Where a custom issue points: `key` for the key of a mapping entry rather than its value. */
export interface HooksConfigIssueParams {
  at?: 'key';
}

type Path = (string | number)[];

const KNOWN_TRIGGERS: ReadonlySet<string> = new Set(HOOK_TRIGGERS);

function checkHooks(hooks: Record<string, HookConfig>, ctx: z.RefinementCtx): void {
  const issue = (path: Path, message: string, params?: HooksConfigIssueParams) =>
    ctx.addIssue({ code: 'custom', path, message, ...(params === undefined ? {} : { params }) });
  for (const [key, hook] of Object.entries(hooks)) {
    const at: Path = ['hooks', key];
    if (!KNOWN_TRIGGERS.has(key)) {
      issue(at, `unknown trigger "${key}" (known: ${HOOK_TRIGGERS.join(', ')})`, { at: 'key' });
      continue;
    }
    const trigger = key as HookTrigger;
    if (hook.trigger !== undefined && hook.trigger !== trigger) {
      issue([...at, 'trigger'], `must be "${trigger}", the key of this hook (or be left out)`);
    }
    checkFailurePolicy(trigger, hook.failure_policy, [...at, 'failure_policy'], issue);
    if (hook.answer_grace !== undefined && !isIntensityAllowed(trigger, 'block') && !isIntensityAllowed(trigger, 'control')) {
      issue([...at, 'answer_grace'], `has no effect: ${trigger} never sends block or control, the signals an agent must answer`);
    }
    const names = new Set<string>();
    hook.oracles.forEach((oracle, index) => {
      const oracleAt: Path = [...at, 'oracles', index];
      if (names.has(oracle.name)) {
        issue([...oracleAt, 'name'], `oracle "${oracle.name}" appears twice in this hook; give the second one another name (and \`use: ${oracle.use ?? oracle.name}\`)`);
      }
      names.add(oracle.name);
      checkFailurePolicy(trigger, oracle.failure_policy, [...oracleAt, 'failure_policy'], issue);
      const ids = new Set<string>();
      oracle.rules?.forEach((rule, ruleIndex) => {
        const ruleAt: Path = [...oracleAt, 'rules', ruleIndex];
        if (rule.id !== undefined) {
          if (ids.has(rule.id)) issue([...ruleAt, 'id'], `rule id "${rule.id}" appears twice in oracle "${oracle.name}"`);
          ids.add(rule.id);
        }
        checkRule(trigger, rule, ruleAt, issue);
      });
    });
  }
}

type Report = (path: Path, message: string, params?: HooksConfigIssueParams) => void;

function checkFailurePolicy(trigger: HookTrigger, policy: string | undefined, at: Path, issue: Report): void {
  if (policy === 'fail_closed' && !isIntensityAllowed(trigger, 'block')) {
    issue(at, `fail_closed would block, which ${trigger} does not allow (allowed: ${TRIGGERS[trigger].allowed.join(', ')}); use fail_open`);
  }
}

interface Ladder {
  steps: readonly Intensity[];
  /** Path of each step, for messages. */
  paths: Path[];
}

function ladderOf(body: { intensity?: Intensity | undefined; escalation?: HookEscalation | undefined }, at: Path): Ladder | undefined {
  if (body.intensity !== undefined) return { steps: [body.intensity], paths: [[...at, 'intensity']] };
  if (body.escalation !== undefined) {
    const base: Path = Array.isArray(body.escalation) ? [...at, 'escalation'] : [...at, 'escalation', 'steps'];
    const steps = escalationSteps(body.escalation);
    return { steps, paths: steps.map((_, i) => [...base, i]) };
  }
  return undefined;
}

function checkRule(trigger: HookTrigger, rule: HookRule, at: Path, issue: Report): void {
  if (rule.require_approval !== undefined) {
    checkApprovalRule(trigger, rule, at, issue);
    return;
  }
  if (rule.intensity !== undefined && rule.escalation !== undefined) {
    issue([...at, 'escalation'], 'a rule has either "intensity" or "escalation", not both');
    return;
  }
  const base = ladderOf(rule, at);
  if (base === undefined) {
    issue([...at, 'intensity'], `missing: every rule needs "intensity" (one of ${INTENSITIES.join(', ')}) or an "escalation" ladder`);
    return;
  }
  checkLadder(trigger, base, issue);
  let baseActionUsed = base.steps.includes('control');
  if (base.steps.includes('control') && rule.action === undefined) {
    issue([...at, 'action'], 'missing: a rule that can produce "control" needs an "action" saying what to modify');
  }
  rule.overrides?.forEach((override, index) => {
    const overrideAt: Path = [...at, 'overrides', index];
    if (override.intensity !== undefined && override.escalation !== undefined) {
      issue([...overrideAt, 'escalation'], 'an override has either "intensity" or "escalation", not both');
      return;
    }
    const own = ladderOf(override, overrideAt);
    if (own !== undefined) checkLadder(trigger, own, issue);
    const ladder = own ?? base;
    const control = ladder.steps.includes('control');
    if (override.action !== undefined) {
      if (!control) issue([...overrideAt, 'action'], 'has no effect: this override never produces "control"');
    } else if (control) {
      if (rule.action === undefined) {
        issue([...overrideAt, 'action'], 'missing: this override can produce "control", so it (or its rule) needs an "action"');
      } else {
        baseActionUsed = true;
      }
    }
  });
  if (rule.action !== undefined && !baseActionUsed) {
    issue([...at, 'action'], 'has no effect: the rule never produces "control" (an action is what a control signal modifies)');
  }
}

function checkLadder(trigger: HookTrigger, ladder: Ladder, issue: Report): void {
  ladder.steps.forEach((step, index) => {
    const path = ladder.paths[index] ?? [];
    if (!isIntensityAllowed(trigger, step)) {
      issue(path, `intensity "${step}" is not allowed at ${trigger} (allowed: ${TRIGGERS[trigger].allowed.join(', ')})`);
      return;
    }
    const previous = ladder.steps[index - 1];
    if (previous !== undefined && compareIntensity(step, previous) > 0) {
      issue(path, `an escalation never weakens: "${step}" after "${previous}" (order: block ≺ control ≺ prompt ≺ aid)`);
    }
  });
}

/** Fields of a rule that say how a signal looks, which an approval rule does not produce. */
const NOT_FOR_APPROVAL_RULES = [
  'intensity',
  'escalation',
  'action',
  'message',
  'severity',
  'suggestions',
  'resolution_path',
  'resolvable',
  'continue_allowed',
  'reversible',
] as const;

/** What an override of an approval rule may change: when it applies and what it tests. */
const APPROVAL_OVERRIDE_FIELDS: ReadonlySet<string> = new Set(['when', 'condition', 'params']);

/**
 * A rule with `require_approval`: only at `pre-tool-use` (a person approves a tool call, and only
 * a pre hook can hold the call back), no intensity or signal fields of its own (the approval is
 * the outcome: a wait, then the person's allow, modification or block), and overrides that only
 * change `condition` and `params`.
 */
function checkApprovalRule(trigger: HookTrigger, rule: HookRule, at: Path, issue: Report): void {
  if (trigger !== 'pre-tool-use') {
    issue([...at, 'require_approval'], `require_approval is only for pre-tool-use rules (a person approves a tool call before it runs), not at ${trigger}`);
  }
  for (const field of NOT_FOR_APPROVAL_RULES) {
    if (rule[field] === undefined) continue;
    const why =
      field === 'intensity' || field === 'escalation'
        ? 'a rule with require_approval has no intensity of its own: the call waits for a person, who allows, modifies or blocks it'
        : field === 'message'
          ? 'the text of an approval rule is require_approval.message'
          : `"${field}" does not apply to a rule with require_approval`;
    issue([...at, field], why);
  }
  rule.overrides?.forEach((override, index) => {
    for (const [field, value] of Object.entries(override)) {
      if (value === undefined || APPROVAL_OVERRIDE_FIELDS.has(field)) continue;
      issue([...at, 'overrides', index, field], 'an override of a rule with require_approval may change only "condition" and "params"');
    }
  });
}
