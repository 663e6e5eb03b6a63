/**
 * Signals (docs/spec/spectrum-and-signals.md#signals): the unit of communication at an intervention point. A header with the
 * metadata, a free-form context, and a payload holding one of the four decision structures.
 */
import { z } from 'zod';
import { SignalPayloadSchema } from './decision.js';
import { IntensitySchema, intensityForLevel, levelForIntensity } from './intensity.js';
import { IdSchema, JsonObjectSchema, ShortStringSchema, TimestampSchema, UuidSchema } from './primitives.js';
import { DOMAIN_TRIGGERS, LIFECYCLE_TRIGGERS } from './trigger.js';

/** Where a signal type comes from (docs/spec/spectrum-and-signals.md#signal-types). */
export const SignalCategorySchema = z.enum(['lifecycle', 'domain', 'policy']).meta({
  id: 'SignalCategory',
  description: 'lifecycle: agent execution events; domain: issue and tool hook events; policy: rule outcomes.',
});
export type SignalCategory = z.infer<typeof SignalCategorySchema>;

/**
 * The catalog of known signal types per category. Domain types are the hook triggers
 * (docs/spec/hooks-and-oracles.md#triggers); lifecycle types are the agent-runtime events; policy types are the rule outcomes
 * the specification names (docs/spec/spectrum-and-signals.md#signal-types, and the typical signal types of the trigger table)
 * plus `context-compaction` for the `pre-compact`
 * trigger. The catalog is for classification and documentation: any kebab-case type is valid on
 * the wire, because users name their own rules in `hooks.yaml`.
 */
export const SIGNAL_TYPES = Object.freeze({
  lifecycle: LIFECYCLE_TRIGGERS,
  domain: DOMAIN_TRIGGERS,
  policy: [
    'security-violation',
    'quality-threshold',
    'permission-check',
    'dependency-check',
    'result-analysis',
    'context-loaded',
    'review-triggered',
    'completion-verify',
    'retrospective',
    'quality-gate',
    'context-compaction',
  ] as const,
});

/** A signal type name: lowercase kebab-case, e.g. `pre-issue-submit`, `quality-gate`. */
export const SignalTypeSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/, 'must be lowercase kebab-case, e.g. "quality-gate"')
  .meta({ id: 'SignalType', description: 'Lowercase kebab-case signal type, e.g. pre-issue-submit or quality-gate.' });
export type SignalType = z.infer<typeof SignalTypeSchema>;

const CATEGORY_OF: ReadonlyMap<string, SignalCategory> = new Map<string, SignalCategory>([
  ...SIGNAL_TYPES.lifecycle.map((t) => [t, 'lifecycle'] as const),
  ...SIGNAL_TYPES.domain.map((t) => [t, 'domain'] as const),
  ...SIGNAL_TYPES.policy.map((t) => [t, 'policy'] as const),
]);

/**
 * The category of a signal type. Types outside the catalog are `policy`: docs/spec/spectrum-and-signals.md#signal-types
 * defines policy signals as rule outcomes, and an unknown type is a rule somebody wrote, not a new agent event
 * or hook point (those are closed sets the protocol defines).
 */
export function signalCategory(type: string): SignalCategory {
  return CATEGORY_OF.get(type) ?? 'policy';
}

/**
 * Signal metadata. `id` is a UUID minted by the oracle worker; `source` names the oracle that
 * produced it; `correlation_id` links signals of one chain (typically the hook id).
 */
export const SignalHeaderSchema = z
  .strictObject({
    id: UuidSchema,
    type: SignalTypeSchema,
    timestamp: TimestampSchema,
    source: ShortStringSchema,
    intensity: IntensitySchema,
    correlation_id: IdSchema.optional(),
  })
  .meta({ id: 'SignalHeader', description: 'Signal metadata: id, type, timestamp, source, intensity, correlation id.' });
export type SignalHeader = z.infer<typeof SignalHeaderSchema>;

/**
 * A signal. Invariant: the header's intensity and the payload's level name the same rung of the
 * spectrum (`block` ↔ `blocking`, …); a signal that says "block" in the header and "suggest" in
 * the payload is rejected, since consumers branch on either.
 */
export const SignalSchema = z
  .strictObject({
    header: SignalHeaderSchema,
    context: JsonObjectSchema,
    payload: SignalPayloadSchema,
  })
  .superRefine((signal, ctx) => {
    if (intensityForLevel(signal.payload.level) !== signal.header.intensity) {
      ctx.addIssue({
        code: 'custom',
        path: ['payload', 'level'],
        message: `payload level "${signal.payload.level}" does not match header intensity "${signal.header.intensity}" (expected "${levelForIntensity(signal.header.intensity)}")`,
      });
    }
  })
  .meta({ id: 'Signal', description: 'A signal: header, free-form context, and a decision payload matching the intensity.' });
export type Signal = z.infer<typeof SignalSchema>;
