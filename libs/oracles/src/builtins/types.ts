/**
 * What a built-in oracle is to the configuration compiler: a named factory of {@link Oracle}s
 * (the same plugin interface users implement) with validated options, optional default rules,
 * facts it derives from the context for rules to read, and extra resolution steps.
 */
import type { HookRule, HookTrigger } from '@ahp/protocol';
import type { z } from 'zod';
import type { Value } from '../expression/values.js';
import type { Oracle } from '../oracle.js';
import type { RuleExtras } from '../rules/compile-rule.js';

/** What {@link BuiltinOracleDefinition.create} gets. */
export interface BuiltinSetup<Options> {
  /** The configured name: the signal `source`. */
  readonly name: string;
  readonly trigger: HookTrigger;
  readonly options: Options;
  /** The oracle made of the entry's rules (or the built-in's default rules), when there are any. */
  readonly rules: Oracle | undefined;
}

/** A built-in oracle, as the configuration refers to it by name. */
export interface BuiltinOracleDefinition<Options = unknown> {
  readonly name: string;
  /** One line for docs and error messages. */
  readonly summary: string;
  /** The triggers it can be configured at. */
  readonly triggers: readonly HookTrigger[];
  /** Validates and fills in `options` (an absent `options` is validated as `{}`). */
  readonly options: z.ZodType<Options>;
  /** Whether the entry may have `rules`. */
  readonly acceptsRules: boolean;
  /** Rules used when the entry gives none (docs/spec/hooks-and-oracles.md#quality-gates for the quality gates). Those the trigger does not allow are left out. */
  defaultRules?(options: Options): HookRule[];
  /** Facts derived from the context that rules can read, e.g. `checklist.incomplete_count` from `checklist.items`. */
  facts?(options: Options): (context: Value) => Value;
  /** Extra payload content for the rules, e.g. a resolution step per incomplete checklist item. */
  extras?(options: Options): RuleExtras;
  /** The oracle to run. Default: the rules oracle (`setup.rules`). */
  create?(setup: BuiltinSetup<Options>): Oracle;
}

/** Defines a built-in with its options type inferred from the schema. */
export function defineBuiltin<Options>(definition: BuiltinOracleDefinition<Options>): BuiltinOracleDefinition<Options> {
  return Object.freeze(definition);
}
