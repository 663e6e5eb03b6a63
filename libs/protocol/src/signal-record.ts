/**
 * What the control plane remembers about each signal it sent, so that an agent's answer can be
 * checked (the signal exists, was sent to that agent, the action fits its intensity) and logged.
 */
import { z } from 'zod';
import { IntensitySchema } from './intensity.js';
import { IdSchema, ShortStringSchema, UuidSchema } from './primitives.js';
import { SignalResponseSchema } from './signal-response.js';
import { HookTriggerSchema } from './trigger.js';

/**
 * One sent signal, indexed by its id; `response` is set once, by the first valid answer. A signal
 * an operator pushed (operator-signal.ts) has no hook, so no `hook_id` or `trigger`, and no
 * `session_id` when the agent was offline: it goes to whichever session of the agent connects.
 * The late aid of a `post-*` hook (pushed after the hook was answered) has all three.
 */
export const SignalRecordSchema = z
  .strictObject({
    signal_id: UuidSchema,
    hook_id: UuidSchema.optional(),
    agent_id: IdSchema,
    session_id: IdSchema.optional(),
    trigger: HookTriggerSchema.optional(),
    intensity: IntensitySchema,
    source: ShortStringSchema,
    type: ShortStringSchema,
    response: SignalResponseSchema.optional(),
  })
  .meta({ id: 'SignalRecord', description: 'A signal sent to an agent, with its response once answered.' });
export type SignalRecord = z.infer<typeof SignalRecordSchema>;
