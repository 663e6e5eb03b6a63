/**
 * The aggregated answer to one hook: every oracle's signal for the hook, folded into the one
 * decision the agent acts on. Produced by a worker with {@link aggregateSignals}, or, when the
 * oracles could not answer, by {@link failurePolicyDecision}.
 */
import { z } from 'zod';
import { ModificationSchema, type Modification } from './decision.js';
import { IntensitySchema, strongestIntensity, type Intensity } from './intensity.js';
import { ShortStringSchema, TextSchema, TimestampSchema, UuidSchema, boundedArray } from './primitives.js';
import { SignalSchema, type Signal } from './signal.js';
import { HookTriggerSchema, type FailurePolicy, type HookTrigger } from './trigger.js';

/** Who produced a decision: the oracles' signals, or the hook's failure policy because they did not answer. */
export const DecidedBySchema = z.enum(['oracles', 'failure_policy']).meta({
  id: 'DecidedBy',
  description: "oracles: aggregated from signals; failure_policy: the hook's failure policy, oracles did not answer.",
});
export type DecidedBy = z.infer<typeof DecidedBySchema>;

/** Why the failure policy had to decide: an error code (e.g. `E_TIMEOUT`) and a message for people. */
export const HookDecisionErrorSchema = z
  .strictObject({
    code: ShortStringSchema.regex(/^[A-Z][A-Z0-9_]*$/, 'must be an UPPER_SNAKE_CASE error code'),
    message: TextSchema,
  })
  .meta({ id: 'HookDecisionError', description: 'Why a hook decision was taken by the failure policy.' });
export type HookDecisionError = z.infer<typeof HookDecisionErrorSchema>;

/**
 * The decision sent to the agent for one hook.
 *
 * - `intensity`: the strongest intensity among `signals`, `null` when no oracle intervened.
 * - `allowed`: false exactly when `intensity` is `block`.
 * - `modifications`: merged from all control signals (see {@link aggregateSignals}); the agent
 *   applies them before running the operation.
 * - `warnings`: the messages of all prompt signals, in signal order.
 * - `signals`: every signal, unchanged, so the agent can answer each with a SignalResponse.
 * - `decided_by: 'failure_policy'`: no signals, and `error` says why.
 * - `error` on a decision `decided_by: 'oracles'`: an oracle failed and its own `fail_open`
 *   policy skipped it (hooks.yaml `failure_policy` on the oracle); the other oracles decided.
 * - `config_version`: the hooks configuration version the oracles evaluated, when known.
 */
export const HookDecisionSchema = z
  .strictObject({
    hook_id: UuidSchema,
    trigger: HookTriggerSchema,
    allowed: z.boolean(),
    intensity: IntensitySchema.nullable(),
    signals: boundedArray(SignalSchema),
    modifications: boundedArray(ModificationSchema),
    warnings: boundedArray(TextSchema),
    decided_by: DecidedBySchema,
    error: HookDecisionErrorSchema.optional(),
    config_version: z.int().nonnegative().optional(),
    decided_at: TimestampSchema,
  })
  .superRefine((decision, ctx) => {
    if (decision.allowed === (decision.intensity === 'block')) {
      ctx.addIssue({
        code: 'custom',
        path: ['allowed'],
        message: decision.allowed ? 'a blocked decision cannot be allowed' : 'only a block can disallow',
      });
    }
    if (decision.decided_by === 'failure_policy') {
      if (decision.error === undefined) {
        ctx.addIssue({ code: 'custom', path: ['error'], message: 'a failure-policy decision must say which error caused it' });
      }
      if (decision.signals.length > 0) {
        ctx.addIssue({ code: 'custom', path: ['signals'], message: 'a failure-policy decision carries no signals' });
      }
      if (decision.intensity !== null && decision.intensity !== 'block') {
        ctx.addIssue({ code: 'custom', path: ['intensity'], message: 'a failure policy either blocks or lets through' });
      }
      return;
    }
    const strongest = strongestIntensity(decision.signals.map((s) => s.header.intensity));
    if (decision.intensity !== strongest) {
      ctx.addIssue({
        code: 'custom',
        path: ['intensity'],
        message: `intensity must be the strongest signal intensity (${strongest ?? 'null'})`,
      });
    }
  })
  .meta({ id: 'HookDecision', description: 'The aggregated decision for one hook, sent to the agent.' });
export type HookDecision = z.infer<typeof HookDecisionSchema>;

/** Input of {@link aggregateSignals}. `now` is an ISO 8601 timestamp; this library never reads a clock. */
export interface AggregateSignalsInput {
  hookId: string;
  trigger: HookTrigger;
  /** In oracle order (the order of `oracles` in the hook's configuration). */
  signals: readonly Signal[];
  now: string;
  configVersion?: number;
}

/**
 * Folds the signals of one hook into a decision. Pure and deterministic.
 *
 * - The strongest intensity wins: block over control over prompt over aid; `allowed` is false
 *   exactly when some signal blocks.
 * - Modifications: the control signals' modifications, one per `target`, in the order targets
 *   first appear. When several modify the same target, the STRICTER one is kept
 *   ({@link stricterModification}): for two numbers the smaller `updated` (a modification
 *   usually imposes a limit: a batch size, a timeout, a file count), for two booleans `false`
 *   (switching something off), otherwise the earlier one in signal order, i.e. the oracle order of
 *   the configuration. The modifications not kept stay visible in their signals.
 * - Warnings: the message of every prompt signal, in signal order.
 * - Every signal is kept, in input order.
 *
 * Signals whose intensity the trigger does not allow are kept as they are; rejecting such rules is
 * the configuration loader's job (see `isIntensityAllowed`), not the aggregator's.
 */
export function aggregateSignals(input: AggregateSignalsInput): HookDecision {
  const intensity: Intensity | null = strongestIntensity(input.signals.map((s) => s.header.intensity));
  const byTarget = new Map<string, Modification>();
  const warnings: string[] = [];
  for (const signal of input.signals) {
    const payload = signal.payload;
    if (payload.level === 'controlling') {
      for (const modification of payload.modifications) {
        const kept = byTarget.get(modification.target);
        byTarget.set(modification.target, kept === undefined ? modification : stricterModification(kept, modification));
      }
    } else if (payload.level === 'prompting') {
      warnings.push(payload.message);
    }
  }
  return {
    hook_id: input.hookId,
    trigger: input.trigger,
    allowed: intensity !== 'block',
    intensity,
    signals: [...input.signals],
    modifications: [...byTarget.values()],
    warnings,
    decided_by: 'oracles',
    ...(input.configVersion === undefined ? {} : { config_version: input.configVersion }),
    decided_at: input.now,
  };
}

/**
 * Of two modifications of the same target, the stricter one: for two numeric `updated` values
 * the smaller, for two booleans the `false` one, otherwise (strings, objects, mixed types, equal
 * values) `earlier`. Used by {@link aggregateSignals}; `earlier` is the one from the earlier
 * signal (the earlier oracle in configuration order).
 */
export function stricterModification(earlier: Modification, later: Modification): Modification {
  const a = earlier.updated;
  const b = later.updated;
  if (typeof a === 'number' && typeof b === 'number') return b < a ? later : earlier;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === true && b === false ? later : earlier;
  return earlier;
}

/** Input of {@link failurePolicyDecision}. */
export interface FailurePolicyDecisionInput {
  hookId: string;
  trigger: HookTrigger;
  policy: FailurePolicy;
  /** Why the oracles did not answer, e.g. `E_TIMEOUT`. */
  code: string;
  message: string;
  now: string;
  configVersion?: number;
}

/**
 * The decision when the oracles could not answer. `fail_closed` denies (`allowed: false`,
 * `intensity: 'block'`); `fail_open` lets the operation through (`allowed: true`,
 * `intensity: null`). No synthetic signal is invented in either case: nothing was evaluated, so
 * there is nothing for the agent to answer, and `error` carries the cause.
 */
export function failurePolicyDecision(input: FailurePolicyDecisionInput): HookDecision {
  const closed = input.policy === 'fail_closed';
  return {
    hook_id: input.hookId,
    trigger: input.trigger,
    allowed: !closed,
    intensity: closed ? 'block' : null,
    signals: [],
    modifications: [],
    warnings: [],
    decided_by: 'failure_policy',
    error: { code: input.code, message: input.message },
    ...(input.configVersion === undefined ? {} : { config_version: input.configVersion }),
    decided_at: input.now,
  };
}
