/**
 * How an agent answers a signal it consumed (docs/spec/spectrum-and-signals.md#answering-signals), and the signal log line
 * that records the pair (docs/spec/signal-log.md#signal-log-lines). Each intensity has its own set of consumption actions; an
 * action from another intensity's set is a protocol error.
 */
import { z } from 'zod';
import { INTENSITIES, IntensitySchema, type Intensity } from './intensity.js';
import { JsonObjectSchema, ShortStringSchema, TimestampSchema, UuidSchema } from './primitives.js';
import type { Signal } from './signal.js';
import { SignalTypeSchema } from './signal.js';
import { HookTriggerSchema } from './trigger.js';

/**
 * The ten consumption actions (docs/spec/spectrum-and-signals.md#consumption-actions), grouped by the intensity they
 * answer. `block` cannot be dismissed (docs/spec/spectrum-and-signals.md#answering-signals: not ignorable); the agent fixes and retries, proceeds at its own risk
 * (an explicit, logged override) or aborts. `control` is applied transparently but the agent
 * reports whether it accepted the modification.
 */
export const ACTIONS_BY_INTENSITY = Object.freeze({
  block: ['retry_after_fix', 'proceed_with_risk', 'abort'],
  control: ['accept_modification', 'reject_modification'],
  prompt: ['acknowledge', 'apply_suggestion', 'dismiss'],
  aid: ['suggestion_applied', 'suggestion_deferred'],
} as const satisfies Record<Intensity, readonly string[]>);

/** Every consumption action, in the order of docs/spec/spectrum-and-signals.md#consumption-actions (block's first, aid's last). */
export const CONSUMPTION_ACTIONS = [
  ...ACTIONS_BY_INTENSITY.block,
  ...ACTIONS_BY_INTENSITY.control,
  ...ACTIONS_BY_INTENSITY.prompt,
  ...ACTIONS_BY_INTENSITY.aid,
] as const;

/** What the agent did with a signal. */
export const ConsumptionActionSchema = z.enum(CONSUMPTION_ACTIONS).meta({
  id: 'ConsumptionAction',
  description: 'What the agent did with a signal; each intensity has its own set of actions.',
});
export type ConsumptionAction = z.infer<typeof ConsumptionActionSchema>;

const INTENSITY_OF_ACTION: ReadonlyMap<ConsumptionAction, Intensity> = new Map(
  INTENSITIES.flatMap((intensity) => ACTIONS_BY_INTENSITY[intensity].map((action) => [action, intensity] as const)),
);

/** The actions that may answer a signal of `intensity`. */
export function actionsForIntensity(intensity: Intensity): readonly ConsumptionAction[] {
  return ACTIONS_BY_INTENSITY[intensity];
}

/** Whether `action` is a valid answer to a signal of `intensity` (e.g. a block cannot be dismissed). */
export function isActionValidFor(intensity: Intensity, action: ConsumptionAction): boolean {
  return INTENSITY_OF_ACTION.get(action) === intensity;
}

/** The intensity whose signals `action` answers. */
export function intensityOfAction(action: ConsumptionAction): Intensity {
  const intensity = INTENSITY_OF_ACTION.get(action);
  if (intensity === undefined) throw new TypeError(`unknown consumption action: ${String(action)}`);
  return intensity;
}

/**
 * The agent's answer to one signal. The schema checks the shape only: whether `action` fits the
 * signal's intensity needs the signal, see {@link checkSignalResponse}.
 */
export const SignalResponseSchema = z
  .strictObject({
    signal_id: UuidSchema,
    consumed_at: TimestampSchema,
    action: ConsumptionActionSchema,
    details: JsonObjectSchema.optional(),
  })
  .meta({ id: 'SignalResponse', description: "The agent's answer to a signal: which action it took and when." });
export type SignalResponse = z.infer<typeof SignalResponseSchema>;

/** Result of {@link checkSignalResponse}; branch on `code`, the message is for people. */
export type SignalResponseCheck =
  | { ok: true }
  | { ok: false; code: 'signal_mismatch' | 'action_not_allowed'; message: string };

/**
 * Whether `response` is a valid answer to `signal`: it names the signal's id and uses an action of
 * the signal's intensity.
 */
export function checkSignalResponse(signal: Signal, response: SignalResponse): SignalResponseCheck {
  if (response.signal_id !== signal.header.id) {
    return {
      ok: false,
      code: 'signal_mismatch',
      message: `response is for signal ${response.signal_id}, not ${signal.header.id}`,
    };
  }
  const intensity = signal.header.intensity;
  if (!isActionValidFor(intensity, response.action)) {
    return {
      ok: false,
      code: 'action_not_allowed',
      message: `action "${response.action}" cannot answer a ${intensity} signal; expected one of ${ACTIONS_BY_INTENSITY[intensity].join(', ')}`,
    };
  }
  return { ok: true };
}

/**
 * One line of the signal log (docs/spec/signal-log.md#signal-log-lines, JSONL): which hook produced which intensity
 * from which source, and whether and how the agent consumed it. The original design's six fields
 * are required,
 * except `hook` for a signal an operator pushed outside any hook (operator-signal.ts); the ids are optional extras that let a line be joined to its signal and hook. Invariants: a
 * consumed entry names its action, an unconsumed one does not, and the action fits the intensity.
 */
export const SignalLogEntrySchema = z
  .strictObject({
    timestamp: TimestampSchema,
    /** Absent for a signal an operator pushed outside any hook (the late aid of a post-* hook has it). */
    hook: HookTriggerSchema.optional(),
    intensity: IntensitySchema,
    source: ShortStringSchema,
    consumed: z.boolean(),
    action: ConsumptionActionSchema.optional(),
    signal_id: UuidSchema.optional(),
    hook_id: UuidSchema.optional(),
    type: SignalTypeSchema.optional(),
  })
  .superRefine((entry, ctx) => {
    if (entry.consumed && entry.action === undefined) {
      ctx.addIssue({ code: 'custom', path: ['action'], message: 'a consumed signal must name the action taken' });
    }
    if (!entry.consumed && entry.action !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['action'], message: 'an unconsumed signal cannot have an action' });
    }
    if (entry.action !== undefined && !isActionValidFor(entry.intensity, entry.action)) {
      ctx.addIssue({
        code: 'custom',
        path: ['action'],
        message: `action "${entry.action}" cannot answer a ${entry.intensity} signal`,
      });
    }
  })
  .meta({ id: 'SignalLogEntry', description: 'One JSONL line of the signal log: hook, intensity, source, consumption.' });
export type SignalLogEntry = z.infer<typeof SignalLogEntrySchema>;
