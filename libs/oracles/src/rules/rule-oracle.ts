/**
 * The rule oracle: an {@link Oracle} whose behaviour is a list of compiled `hooks.yaml` rules.
 * Rules-only oracles (e.g. `notification`) are exactly this; the built-in checklist, change-size
 * and test oracles are this plus facts derived from the context and extra resolution steps.
 */
import type { HookTrigger, JsonObject } from '@ahp/protocol';
import type { Value } from '../expression/values.js';
import type { Oracle, OracleContext, OracleInput, OracleVerdict } from '../oracle.js';
import type { CompiledRule } from './compile-rule.js';
import type { RuleCounters } from './counters.js';
import { MissingContextError } from './missing-context.js';
import { createRuleIndex } from './rule-index.js';
import { ruleScope, withParams } from './scope.js';

/** Options of {@link createRuleOracle}. */
export interface RuleOracleOptions {
  readonly name: string;
  /** The trigger of the hook the oracle belongs to. */
  readonly trigger: HookTrigger;
  readonly rules: readonly CompiledRule[];
  /** `all`: every matching rule produces a verdict. `first`: only the first matching rule does. @defaultValue `all` */
  readonly match?: 'all' | 'first';
  /** The configuration's `environment`, used when the agent's token names none. */
  readonly defaultEnvironment?: string;
  /** Derives facts from the context before the rules see it (built-in oracles). Must not throw for any JSON context. */
  readonly facts?: (context: Value) => Value;
  /**
   * Evaluate only the rules the index says can match (rule-index.ts); `false` evaluates every
   * rule, the reference the differential test compares against. @defaultValue true
   */
  readonly indexed?: boolean;
}

/**
 * Creates a rule oracle. For each rule in order (only those its index says can match: skipping
 * the others changes nothing, see rule-index.ts):
 *
 * 1. the first override whose `when` holds (evaluated with the rule's own params) is the
 *    variant that applies; none → the rule itself;
 * 2. its `condition` is evaluated with the variant's params;
 * 3. false → no signal; for an escalating rule, the agent's consecutive count restarts
 *    (`recordCompliance`);
 * 4. true → a verdict. Its intensity is the variant's `intensity`, or for an escalating rule the
 *    step of its ladder matching the agent's consecutive violations (`recordViolation`; the last
 *    step repeats). Provenance: `rule` = the rule id; `details` = the escalation count and step,
 *    the override index and the environment.
 *
 * A condition that is false after reading context fields the hook does not have, or values of a
 * type its operators cannot read (a list where `matches` needs a string), in a variant that can
 * block, control or require approval, throws {@link MissingContextError} (fail closed).
 *
 * Counters are used only by escalating rules; such a rule without `ctx.counters`, or a counter
 * call that fails, is a failure of the oracle (handled by its failure policy).
 */
export function createRuleOracle(options: RuleOracleOptions): Oracle {
  const { name, trigger, rules } = options;
  const first = options.match === 'first';
  const index =
    options.indexed === false
      ? undefined
      : createRuleIndex(
          rules.map((rule) => {
            const condition = rule.variants.length === 1 ? rule.variants[0]?.condition : undefined;
            const indexable = !rule.counted && condition !== undefined && condition.lang !== 'cel';
            return { condition: indexable ? condition.source : undefined, patterns: condition?.patterns };
          }),
        );
  return {
    name,
    triggers: [trigger],
    async evaluate(input: OracleInput, ctx: OracleContext): Promise<OracleVerdict[]> {
      const raw = input.context as Value;
      const context = options.facts === undefined ? raw : options.facts(raw);
      const scope = ruleScope({ context, agent: input.agent, trigger: input.trigger, defaultEnvironment: options.defaultEnvironment, params: {} });
      const verdicts: OracleVerdict[] = [];
      const candidates = index === undefined ? undefined : index.candidates(context);
      for (let at = 0; at < (candidates?.length ?? rules.length); at += 1) {
        const rule = rules[candidates === undefined ? at : (candidates[at] as number)] as CompiledRule;
        const verdict = await evaluateRule(name, rule, scope, input, ctx);
        if (verdict === undefined) continue;
        verdicts.push(verdict);
        if (first) break;
      }
      return verdicts;
    },
  };
}

async function evaluateRule(
  oracle: string,
  rule: CompiledRule,
  base: ReturnType<typeof ruleScope>,
  input: OracleInput,
  ctx: OracleContext,
): Promise<OracleVerdict | undefined> {
  const whenScope = withParams(base, rule.baseParams);
  const variant = rule.variants.find((v) => v.when === undefined || v.when.test(whenScope)) ?? rule.variants[rule.variants.length - 1];
  if (variant === undefined) return undefined;
  const missing: string[] = [];
  const mistyped: string[] = [];
  const scope = withParams(base, variant.params);
  const agentId = input.agent.id;
  if (!variant.condition.test({ ...scope, missing, mistyped })) {
    // A rule that could have restricted the operation, and did not because a field it reads is
    // absent or of a type its operator cannot read, has not decided anything: fail closed rather
    // than let "absent" or "a list where a string was expected" mean "allowed".
    if ((missing.length > 0 || mistyped.length > 0) && restricts(variant)) throw new MissingContextError(oracle, rule.id, missing, mistyped);
    if (rule.counted) await countersOf(ctx, rule).recordCompliance({ agentId, ruleKey: rule.key, hookId: input.hookId });
    return undefined;
  }
  const details: JsonObject = {};
  let intensity = variant.ladder[0];
  if (rule.counted) {
    const violations = await countersOf(ctx, rule).recordViolation({ agentId, ruleKey: rule.key, hookId: input.hookId, ttlMs: variant.ttlMs });
    const step = Math.min(Math.max(Math.trunc(violations), 1), variant.ladder.length);
    intensity = variant.ladder[step - 1];
    details['escalation'] = { violations, step, steps: [...variant.ladder] };
  }
  if (variant.override !== undefined) details['override'] = variant.override;
  const env = scope.vars.env;
  if (typeof env === 'string') details['environment'] = env;
  const build = intensity === undefined ? undefined : variant.payload[intensity];
  if (intensity === undefined || build === undefined) throw new Error(`rule "${rule.id}" has no payload for intensity ${String(intensity)}`);
  return {
    intensity,
    ...(variant.type === undefined ? {} : { type: variant.type }),
    rule: rule.id,
    payload: build(scope),
    details,
    ...(variant.approval === undefined ? {} : { approval: variant.approval }),
  };
}

/** Whether the variant can stop or change the operation: a block or control step, or an approval. */
function restricts(variant: CompiledRule['variants'][number]): boolean {
  return variant.approval !== undefined || variant.ladder.some((step) => step === 'block' || step === 'control');
}

function countersOf(ctx: OracleContext, rule: CompiledRule): RuleCounters {
  if (ctx.counters === undefined) {
    throw new Error(`rule "${rule.id}" escalates, which needs rule counters, and this evaluation has none`);
  }
  return ctx.counters;
}
