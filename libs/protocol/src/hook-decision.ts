/**
 * The aggregated answer to one hook: every oracle's signal for the hook, folded into the one
 * decision the agent acts on. Produced by a worker with {@link aggregateSignals}, or, when the
 * oracles could not answer, by {@link failurePolicyDecision}.
 */
import { z } from 'zod';
import { ModificationSchema } from './decision.js';
import { describeSource, mergeModifications, type MergeItem, type ModificationConflict } from './modification-merge.js';
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
 *   applies them, in order, before running the operation (`applyModifications`).
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
  /**
   * Mints the id of the block signal added when control signals conflict (see
   * {@link mergeModifications}). Without it, a conflict throws: every caller that aggregates
   * signals of real oracles passes one.
   */
  newId?: () => string;
  /** The id of the signal carrying an operator's edited input: its changes supersede the others' on the same fields. */
  authoritativeSignalId?: string;
}

/** The `source` of signals the control plane adds itself (not an oracle's). */
export const CONTROL_PLANE_SOURCE = 'ahp';

/** The type of the block signal added when two control signals change one field in incompatible ways. */
export const MODIFICATION_CONFLICT_SIGNAL_TYPE = 'modification-conflict';

function isConflictSignal(signal: Signal): boolean {
  return signal.header.type === MODIFICATION_CONFLICT_SIGNAL_TYPE && signal.header.source === CONTROL_PLANE_SOURCE;
}

function mergeItemsOf(signals: readonly Signal[], authoritativeSignalId: string | undefined): MergeItem[] {
  return signals.flatMap((signal) => {
    const payload = signal.payload;
    if (payload.level !== 'controlling') return [];
    const rule = signal.context['rule'];
    return payload.modifications.map((modification) => ({
      modification,
      source: signal.header.source,
      ...(typeof rule === 'string' ? { rule } : {}),
      ...(signal.header.id === authoritativeSignalId ? { authoritative: true } : {}),
    }));
  });
}

/** The block signal for conflicting changes: says which field, which sources, which values, and what would resolve it. */
function conflictSignal(conflicts: readonly ModificationConflict[], input: AggregateSignalsInput): Signal {
  if (input.newId === undefined) throw new TypeError('aggregateSignals: control signals conflict, and no newId was given to mint the block signal');
  const describe = (c: ModificationConflict) =>
    `${c.first.modification.target}: ${describeSource(c.first)} changes it to ${JSON.stringify(c.first.modification.updated).slice(0, 200)}, ` +
    `${describeSource(c.second)} to ${JSON.stringify(c.second.modification.updated).slice(0, 200)}`;
  const sources = [...new Set(conflicts.flatMap((c) => [describeSource(c.first), describeSource(c.second)]))];
  const reason = `Blocked: rules change the same field of this call in ways that cannot both apply (${conflicts.map(describe).join('; ')}). Applying one would cancel the other, so neither is applied and the call does not run.`;
  return {
    header: {
      id: input.newId(),
      type: MODIFICATION_CONFLICT_SIGNAL_TYPE,
      timestamp: input.now,
      source: CONTROL_PLANE_SOURCE,
      intensity: 'block',
      correlation_id: input.hookId,
    },
    context: { conflicts: conflicts.map((c) => ({ target: c.first.modification.target, sources: [describeSource(c.first), describeSource(c.second)] })) },
    payload: {
      level: 'blocking',
      decision: 'deny',
      reason: reason.length > 4000 ? `${reason.slice(0, 3999)}…` : reason,
      resolvable: false,
      resolution_path: [
        `an operator changes the hooks configuration so that ${sources.join(' and ')} do not both rewrite the same field for one call (narrow one rule's condition, or make it block instead of rewriting)`,
      ],
    },
  };
}

/**
 * Folds the signals of one hook into a decision. Pure and deterministic.
 *
 * - The strongest intensity wins: block over control over prompt over aid; `allowed` is false
 *   exactly when some signal blocks.
 * - Modifications: the control signals' modifications combined by {@link mergeModifications}
 *   (in the order targets first appear): the same change once, the stricter of two limits, a
 *   change decided on top of another composed with it, an operator's edit over the changes of
 *   the fields it replaced. Any other two changes of one field conflict: a block signal
 *   ({@link MODIFICATION_CONFLICT_SIGNAL_TYPE}, source {@link CONTROL_PLANE_SOURCE}) naming both
 *   is added, and the decision blocks. Never is a control dropped without a trace.
 * - Warnings: the message of every prompt signal, in signal order.
 * - Every signal is kept, in input order (a conflict signal a previous aggregation added is
 *   recomputed, not kept twice).
 *
 * Signals whose intensity the trigger does not allow are kept as they are; rejecting such rules is
 * the configuration loader's job (see `isIntensityAllowed`), not the aggregator's.
 */
export function aggregateSignals(input: AggregateSignalsInput): HookDecision {
  let signals = input.signals.filter((signal) => !isConflictSignal(signal));
  const merged = mergeModifications(mergeItemsOf(signals, input.authoritativeSignalId));
  if (merged.conflicts.length > 0) signals = [...signals, conflictSignal(merged.conflicts, input)];
  const intensity: Intensity | null = strongestIntensity(signals.map((s) => s.header.intensity));
  const warnings = signals.flatMap((signal) => (signal.payload.level === 'prompting' ? [signal.payload.message] : []));
  return {
    hook_id: input.hookId,
    trigger: input.trigger,
    allowed: intensity !== 'block',
    intensity,
    signals,
    modifications: merged.modifications,
    warnings,
    decided_by: 'oracles',
    ...(input.configVersion === undefined ? {} : { config_version: input.configVersion }),
    decided_at: input.now,
  };
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
