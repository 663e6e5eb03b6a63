/**
 * Shadow mode of the hooks configuration: a candidate version that workers evaluate beside the
 * live one on every hook, after the live decision was delivered, recording where the two differ.
 * A shadow never decides anything; an admin promotes it (it becomes a new live version) or drops it.
 */
import { z } from 'zod';
import { Sha256HexSchema } from './agent.js';
import { MAX_CONFIG_SOURCE_CHARS } from './config-version.js';
import { decisionOutcomeOf, decisionOutcomeSchema, type DecisionOutcome } from './decision-outcome.js';
import type { HookDecision } from './hook-decision.js';
import { HooksConfigSchema } from './hooks-config.js';
import { HooksConfigWarningSchema } from './operator.js';
import { ShortStringSchema, TimestampSchema } from './primitives.js';
import { HookTriggerSchema } from './trigger.js';

/** A shadow's number: 1, 2, 3… in the order shadows were set, independent of live version numbers. */
export const ShadowNumberSchema = z.int().positive().max(Number.MAX_SAFE_INTEGER);

/** A shadow as stored in Redis: the text, its parsed form (what workers compile) and who set it when. */
export const StoredShadowConfigSchema = z
  .strictObject({
    shadow: ShadowNumberSchema,
    source: z.string().max(MAX_CONFIG_SOURCE_CHARS),
    digest: Sha256HexSchema,
    published_at: TimestampSchema,
    published_by: ShortStringSchema,
    /** The live version when the shadow was set (`null`: none was published). */
    live_version: z.int().positive().nullable(),
    config: HooksConfigSchema,
  })
  .meta({ id: 'StoredShadowConfig', description: 'A shadow hooks configuration as stored: text, digest, who set it, parsed config.' });
export type StoredShadowConfig = z.infer<typeof StoredShadowConfigSchema>;

/**
 * What a decision does, for comparing two of them: `allow` (no intervention), the strongest
 * signal's intensity, or `approval` (a rule asks a person before the call runs). A failure-policy
 * decision is `allow` or `block`. The same classification as a replay's (decision-outcome.ts).
 */
export const ShadowOutcomeSchema = decisionOutcomeSchema().meta({
  id: 'ShadowOutcome',
  description: 'What a decision does: allow, its strongest intensity, or approval (a rule asks a person).',
});
export type ShadowOutcome = DecisionOutcome;

/** The outcome of a decision as the oracles produced it (before any approval round): {@link decisionOutcomeOf}. */
export function shadowOutcomeOf(decision: Pick<HookDecision, 'intensity' | 'signals'>): ShadowOutcome {
  return decisionOutcomeOf(decision);
}

/** A rule as disagreement counters name it ({@link signalRuleName}, `|` made `_`): 300 accepts the longer names counters written before the two shared one cap kept. */
export const ShadowRuleNameSchema = z.string().min(1).max(300);

/** `from→to` counts, e.g. `{ "allow→block": 3 }`. */
const TransitionsSchema = z.record(z.string().max(40), z.int().nonnegative());

/** Counters of one rule: hooks where it produced a signal in either version, and how many of those disagreed. */
export const ShadowRuleStatsSchema = z
  .strictObject({
    rule: ShadowRuleNameSchema,
    fired: z.int().nonnegative(),
    disagreements: z.int().nonnegative(),
    transitions: TransitionsSchema,
  })
  .meta({ id: 'ShadowRuleStats' });
export type ShadowRuleStats = z.infer<typeof ShadowRuleStatsSchema>;

/** One hook where live and shadow disagreed. */
export const ShadowExampleSchema = z
  .strictObject({
    hook_id: z.string().max(128),
    agent_id: z.string().max(128),
    trigger: HookTriggerSchema,
    at: TimestampSchema,
    live: ShadowOutcomeSchema,
    shadow: ShadowOutcomeSchema,
    /** The live version that decided (absent: the built-in defaults). */
    live_version: z.int().positive().optional(),
    /** Rules whose signals differ between the two decisions. */
    rules: z.array(ShadowRuleNameSchema).max(20),
  })
  .meta({ id: 'ShadowExample', description: 'A hook where the live and the shadow decisions differed.' });
export type ShadowExample = z.infer<typeof ShadowExampleSchema>;

/** Answer of `GET /v1/operator/config/shadow`: the shadow, since when, and its disagreement counters. */
export const ShadowStatusResponseSchema = z
  .strictObject({
    shadow: ShadowNumberSchema,
    digest: Sha256HexSchema,
    published_at: TimestampSchema,
    published_by: ShortStringSchema,
    live_version: z.int().positive().nullable(),
    source: z.string().max(MAX_CONFIG_SOURCE_CHARS),
    /** Hooks evaluated by both versions since the shadow was set. */
    evaluated: z.int().nonnegative(),
    disagreements: z.int().nonnegative(),
    /** Hooks whose shadow evaluation failed (an oracle error is a failure-policy outcome, not this). */
    errors: z.int().nonnegative(),
    /**
     * Hooks not shadowed because every shadow slot of their worker was busy (the worker sheds the
     * shadow's work under load, never the live work): the rate covers `evaluated`, not these.
     * Counted by the workers about once a second.
     */
    skipped_busy: z.int().nonnegative(),
    transitions: TransitionsSchema,
    rules: z.array(ShadowRuleStatsSchema),
    /** Newest first, at most {@link MAX_SHADOW_EXAMPLES}. */
    examples: z.array(ShadowExampleSchema),
  })
  .meta({ id: 'ShadowStatusResponse', description: 'The shadow configuration and where it disagrees with the live one.' });
export type ShadowStatusResponse = z.infer<typeof ShadowStatusResponseSchema>;

/** Answer of `POST /v1/operator/config/shadow`. */
export const SetShadowResponseSchema = z
  .strictObject({ shadow: ShadowNumberSchema, unchanged: z.boolean(), warnings: z.array(HooksConfigWarningSchema) })
  .meta({ id: 'SetShadowResponse' });
export type SetShadowResponse = z.infer<typeof SetShadowResponseSchema>;

/** Answer of `POST /v1/operator/config/shadow/promote`: the live version it became. */
export const PromoteShadowResponseSchema = z
  .strictObject({ shadow: ShadowNumberSchema, version: z.int().positive(), unchanged: z.boolean() })
  .meta({ id: 'PromoteShadowResponse' });
export type PromoteShadowResponse = z.infer<typeof PromoteShadowResponseSchema>;

/** Answer of `DELETE /v1/operator/config/shadow`. */
export const DropShadowResponseSchema = z.strictObject({ shadow: ShadowNumberSchema, dropped: z.literal(true) }).meta({ id: 'DropShadowResponse' });
export type DropShadowResponse = z.infer<typeof DropShadowResponseSchema>;

/** Body of promote and drop: the shadow the admin looked at, so a shadow replaced meanwhile is not promoted by mistake. */
export const ShadowActionBodySchema = z.strictObject({ shadow: ShadowNumberSchema.optional() }).meta({ id: 'ShadowActionBody' });
export type ShadowActionBody = z.infer<typeof ShadowActionBodySchema>;

/** Most recent disagreement examples kept per shadow. */
export const MAX_SHADOW_EXAMPLES = 50;
/** Most rules a status lists (the ones with the most disagreements, then the most firings). */
export const MAX_SHADOW_RULES = 200;
