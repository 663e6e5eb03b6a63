/**
 * Signals an operator pushes to a running agent (docs/spec/spectrum-and-signals.md#operator-signals), outside
 * any hook: the body of `POST /v1/operator/agents/:agentId/signals`, its answer, and the signal
 * built from them. Only `prompt` and `aid` can be sent this way: a block or a control is the
 * outcome of a hook decision (the agent is waiting on it and must obey it), and pushed on its own
 * there is nothing for it to stop or modify.
 */
import { z } from 'zod';
import { AidSuggestionSchema, SeveritySchema } from './decision.js';
import { JsonObjectSchema, TextSchema, TimestampSchema, boundedArray } from './primitives.js';
import { SignalSchema, SignalTypeSchema, type Signal } from './signal.js';

/** Non-empty human text (the operator's message, reason, suggestion). */
const RequiredTextSchema = TextSchema.min(1);

/** Most suggestions one operator signal carries: a person types them, a handful is plenty. */
export const MAX_OPERATOR_SUGGESTIONS = 20;

/** Default of `ttl_ms`: how long an operator signal waits for an agent that is offline, and is re-pushed until answered. */
export const DEFAULT_OPERATOR_SIGNAL_TTL_MS = 60 * 60 * 1000;
/** Longest `ttl_ms`: the life of a signal record (the store's default signal TTL, 24 h). */
export const MAX_OPERATOR_SIGNAL_TTL_MS = 24 * 60 * 60 * 1000;

/** The intensities an operator may push. */
export const OPERATOR_SIGNAL_INTENSITIES = ['prompt', 'aid'] as const;

const common = {
  /** The signal type in the header; defaults to `operator-prompt` / `operator-aid`. */
  type: SignalTypeSchema.optional(),
  /** Free-form context for the agent (what the operator looked at). */
  context: JsonObjectSchema.optional(),
  ttl_ms: z.number().int().min(1000).max(MAX_OPERATOR_SIGNAL_TTL_MS).optional(),
};

const intensityError = {
  error: 'an operator can send only "prompt" or "aid" signals; block and control exist only as hook decisions',
};

/** A prompt: a warning with a message, a severity and suggestions (docs/spec/spectrum-and-signals.md#prompting). */
export const OperatorPromptSignalBodySchema = z.strictObject({
  intensity: z.literal('prompt', intensityError),
  message: RequiredTextSchema,
  severity: SeveritySchema.default('medium'),
  suggestions: boundedArray(RequiredTextSchema, MAX_OPERATOR_SUGGESTIONS).default([]),
  continue_allowed: z.boolean().default(true),
  ...common,
});

/** An aid: a reason (the payload's `context`) and suggestions (docs/spec/spectrum-and-signals.md#aiding). */
export const OperatorAidSignalBodySchema = z.strictObject({
  intensity: z.literal('aid', intensityError),
  reason: RequiredTextSchema,
  suggestions: boundedArray(AidSuggestionSchema, MAX_OPERATOR_SUGGESTIONS).default([]),
  ...common,
});

/**
 * Body of `POST /v1/operator/agents/:agentId/signals`. Discriminated on `intensity`; `block` and
 * `control` (or anything else) are refused with `E_INVALID_FRAME` at `intensity`.
 */
export const OperatorSignalBodySchema = z
  .discriminatedUnion('intensity', [OperatorPromptSignalBodySchema, OperatorAidSignalBodySchema], intensityError)
  .meta({ id: 'OperatorSignalBody', description: 'A prompt or aid signal an operator pushes to an agent.' });
export type OperatorSignalBody = z.infer<typeof OperatorSignalBodySchema>;
export type OperatorSignalBodyInput = z.input<typeof OperatorSignalBodySchema>;

/**
 * Answer of the route. `delivery`: `pushed` when the agent was connected (its gateway was told to
 * push it now), `queued` when it was not (it is pushed when the agent connects before
 * `expires_at`). Either way the signal is re-pushed on every new connection until answered.
 */
export const OperatorSignalResponseSchema = z
  .strictObject({
    signal: SignalSchema,
    delivery: z.enum(['pushed', 'queued']),
    expires_at: TimestampSchema,
  })
  .meta({ id: 'OperatorSignalResponse', description: 'The signal sent, whether the agent was connected, and until when it is delivered.' });
export type OperatorSignalResponse = z.infer<typeof OperatorSignalResponseSchema>;

/** What {@link operatorSignal} needs besides the body. */
export interface OperatorSignalOrigin {
  /** The signal id (a fresh UUID). */
  id: string;
  /** The operator's id; the header's `source` is `operator:<id>`. */
  operatorId: string;
  now: Date;
}

/** The header `source` of a signal sent by operator `operatorId`. */
export function operatorSignalSource(operatorId: string): string {
  return `operator:${operatorId}`;
}

/** The signal an operator's body describes. */
export function operatorSignal(body: OperatorSignalBody, origin: OperatorSignalOrigin): Signal {
  const header = {
    id: origin.id,
    type: body.type ?? (body.intensity === 'prompt' ? 'operator-prompt' : 'operator-aid'),
    timestamp: origin.now.toISOString(),
    source: operatorSignalSource(origin.operatorId),
    intensity: body.intensity,
  };
  const context = body.context ?? {};
  if (body.intensity === 'prompt') {
    return {
      header,
      context,
      payload: { level: 'prompting', decision: 'warn', severity: body.severity, message: body.message, suggestions: body.suggestions, continue_allowed: body.continue_allowed },
    };
  }
  return { header, context, payload: { level: 'aiding', decision: 'suggest', context: body.reason, suggestions: body.suggestions } };
}
