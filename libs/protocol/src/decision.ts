/**
 * The four decision structures of docs/spec/spectrum-and-signals.md#decision-structures: what an oracle
 * concretely asks the agent to do at each level of the spectrum. Field names are the original
 * design's, verbatim; a signal's `payload` is one of
 * these, discriminated on `level`.
 */
import { z } from 'zod';
import { JsonValueSchema, ShortStringSchema, TextSchema, TimestampSchema, boundedArray } from './primitives.js';
import { modificationTargetProblem } from './modification-target.js';
import { RequestIdSchema } from './request.js';

/** Non-empty human text; a reason or message that says nothing is a bug in the oracle. */
const RequiredTextSchema = TextSchema.min(1);

/**
 * A machine-readable way out of a block, for clients that act on it without reading the text.
 * Discriminated on `kind`; clients must treat a kind they do not know as a plain block.
 *
 * - `await_approval`: the call waits for a person's decision on the `tool_approval` request
 *   `request_id`, which expires at `deadline`. Once it is settled, the agent sends the same call
 *   again as a new hook with `context.approval = { request_id }` and gets the final decision
 *   (docs/protocol.md, "Tool approvals required by rules").
 */
export const BlockResolutionSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('await_approval'), request_id: RequestIdSchema, deadline: TimestampSchema }),
  ])
  .meta({ id: 'BlockResolution', description: 'A machine-readable way out of a block, e.g. await_approval { request_id, deadline }.' });
export type BlockResolution = z.infer<typeof BlockResolutionSchema>;

/**
 * Blocking: deny the operation. `resolvable` tells the agent whether it can fix the cause itself;
 * `resolution_path` lists the steps that would lift the block (may be empty when not resolvable);
 * `resolution`, when present, says the same for programs (see {@link BlockResolutionSchema}).
 */
export const BlockingDecisionSchema = z
  .strictObject({
    level: z.literal('blocking'),
    decision: z.literal('deny'),
    reason: RequiredTextSchema,
    resolvable: z.boolean(),
    resolution_path: boundedArray(RequiredTextSchema),
    resolution: BlockResolutionSchema.optional(),
  })
  .meta({ id: 'BlockingDecision', description: 'Deny execution, with the reason and how to resolve it.' });
export type BlockingDecision = z.infer<typeof BlockingDecisionSchema>;

/**
 * What a modification's `target` may be: a JSON Pointer into the tool input (`/command`,
 * `/argv/2`, `/cmd.x`) or a dotted path of keys (`command`, `options.depth`); no prototype
 * names, so that applying it (`applyModifications`) can only ever write a field. See
 * modification-target.ts.
 */
export const ModificationTargetSchema = ShortStringSchema.superRefine((target, ctx) => {
  const problem = modificationTargetProblem(target);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
}).meta({ id: 'ModificationTarget', description: 'A JSON Pointer (/a/0/b, ~1 for /, ~0 for ~) or a dotted path of keys; no empty dotted segments, no prototype names.' });

/**
 * One parameter change imposed by a controlling decision: `target` names the parameter (a key or a
 * dotted path in the tool input, as the oracle understands it), `original` and `updated` are its
 * values before and after, as arbitrary JSON. `original` may be JSON `null` but never absent.
 */
export const ModificationSchema = z
  .strictObject({
    target: ModificationTargetSchema,
    original: JsonValueSchema,
    updated: JsonValueSchema,
    reason: RequiredTextSchema,
  })
  .meta({ id: 'Modification', description: 'A parameter change: target, original value, updated value, reason.' });
export type Modification = z.infer<typeof ModificationSchema>;

/**
 * Controlling: allow the operation with the listed modifications applied. At least one
 * modification, since a control decision without one is indistinguishable from no decision.
 * `reversible` says whether the agent may later undo the adjustment.
 */
export const ControllingDecisionSchema = z
  .strictObject({
    level: z.literal('controlling'),
    decision: z.literal('allow_with_modification'),
    modifications: boundedArray(ModificationSchema).min(1),
    reversible: z.boolean(),
  })
  .meta({ id: 'ControllingDecision', description: 'Allow execution with parameter modifications applied.' });
export type ControllingDecision = z.infer<typeof ControllingDecisionSchema>;

/** How serious a prompting warning is. */
export const SeveritySchema = z
  .enum(['low', 'medium', 'high', 'critical'])
  .meta({ id: 'Severity', description: 'Severity of a prompting warning.' });
export type Severity = z.infer<typeof SeveritySchema>;

/**
 * Prompting: allow the operation but warn. `continue_allowed: false` asks the agent to confirm
 * (e.g. with a person) before it continues; it is still not a block.
 */
export const PromptingDecisionSchema = z
  .strictObject({
    level: z.literal('prompting'),
    decision: z.literal('warn'),
    severity: SeveritySchema,
    message: RequiredTextSchema,
    suggestions: boundedArray(RequiredTextSchema),
    continue_allowed: z.boolean(),
  })
  .meta({ id: 'PromptingDecision', description: 'Allow execution with a warning and optional suggestions.' });
export type PromptingDecision = z.infer<typeof PromptingDecisionSchema>;

/**
 * One suggestion of an aiding decision. `type` is an open, short category label (the original design uses
 * `best_practice` and `follow_up`); consumers must tolerate labels they do not know.
 */
export const AidSuggestionSchema = z
  .strictObject({
    type: ShortStringSchema,
    description: RequiredTextSchema,
  })
  .meta({ id: 'AidSuggestion', description: 'A post-event suggestion: category label and description.' });
export type AidSuggestion = z.infer<typeof AidSuggestionSchema>;

/** Aiding: after the event, suggest follow-ups. `context` summarises what just happened. */
export const AidingDecisionSchema = z
  .strictObject({
    level: z.literal('aiding'),
    decision: z.literal('suggest'),
    context: TextSchema,
    suggestions: boundedArray(AidSuggestionSchema),
  })
  .meta({ id: 'AidingDecision', description: 'After execution, suggest best practices or follow-ups.' });
export type AidingDecision = z.infer<typeof AidingDecisionSchema>;

/** A signal's payload: exactly one of the four decision structures, selected by `level`. */
export const SignalPayloadSchema = z
  .discriminatedUnion('level', [
    BlockingDecisionSchema,
    ControllingDecisionSchema,
    PromptingDecisionSchema,
    AidingDecisionSchema,
  ])
  .meta({ id: 'SignalPayload', description: 'One of the four decision structures, discriminated on level.' });
export type SignalPayload = z.infer<typeof SignalPayloadSchema>;
