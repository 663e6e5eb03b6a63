/**
 * The drill-down of one hook (docs/console.md "Hook drill-down"): what the worker evaluated, what
 * each oracle said, how long each stage took and how the agent answered. Recorded with the
 * decision of every hook that sent signals (the hooks an operator can reach from a signal row or
 * a timeline entry), read back by `GET /v1/operator/hooks/:hookId`.
 */
import { z } from 'zod';
import { ConfigVersionNumberSchema } from './config-version.js';
import { ModificationSchema } from './decision.js';
import { DecidedBySchema } from './hook-decision.js';
import { EpochMsSchema } from './hook-job.js';
import { IntensitySchema } from './intensity.js';
import { IdSchema, JsonObjectSchema, ShortStringSchema, TextSchema, UuidSchema, boundedArray } from './primitives.js';
import { SignalResponseSchema } from './signal-response.js';
import { SignalTypeSchema } from './signal.js';
import { HookTriggerSchema } from './trigger.js';

/** Largest context (as JSON) kept in a drill-down; a larger one is left out and `context_omitted` says so. */
export const MAX_DRILL_DOWN_CONTEXT_BYTES = 16 * 1024;

/** How one oracle's run ended (the rules engine's `OracleOutcome`). */
export const OracleOutcomeSchema = z.enum(['answered', 'threw', 'timeout', 'invalid']);
export type OracleOutcome = z.infer<typeof OracleOutcomeSchema>;

/** One oracle's verdict on the hook. */
export const OracleVerdictSchema = z
  .strictObject({
    oracle: ShortStringSchema,
    outcome: OracleOutcomeSchema,
    duration_ms: z.number().nonnegative(),
    /** Signals it contributed (0 unless it answered). */
    signals: z.int().nonnegative(),
    /** Why it failed, for operators. */
    message: TextSchema.optional(),
    /** It failed and its own `fail_open` policy skipped it. */
    skipped: z.boolean().optional(),
  })
  .meta({ id: 'OracleVerdict', description: "One oracle's run on a hook: outcome, time, signals." });
export type OracleVerdict = z.infer<typeof OracleVerdictSchema>;

/** A signal of the decision as the drill-down lists it. */
export const DrillDownSignalSchema = z.strictObject({
  signal_id: UuidSchema,
  source: ShortStringSchema,
  intensity: IntensitySchema,
  type: SignalTypeSchema,
  rule: ShortStringSchema.optional(),
  message: TextSchema.optional(),
});
export type DrillDownSignal = z.infer<typeof DrillDownSignalSchema>;

/**
 * What the worker records with the first decision of a hook that sent signals (the `detail`
 * field of `<prefix>:hook:{<hookId>}:detail`). The stage times of the hash (`received_at`,
 * `decided_at`, `delivered_at`) are beside it, not in it: they come from other writers.
 */
export const HookEvaluationDetailSchema = z
  .strictObject({
    hook_id: UuidSchema,
    agent_id: IdSchema,
    session_id: IdSchema,
    trigger: HookTriggerSchema,
    /** When the gateway handed the job to the queue (gateway clock). */
    enqueued_at: EpochMsSchema,
    /** When a worker picked the job up (that worker's clock). */
    picked_at: EpochMsSchema,
    oracles: boundedArray(OracleVerdictSchema),
    /** The hook's context with secrets redacted; absent when larger than {@link MAX_DRILL_DOWN_CONTEXT_BYTES}. */
    context: JsonObjectSchema.optional(),
    context_omitted: z.literal('too_large').optional(),
    allowed: z.boolean(),
    intensity: IntensitySchema.nullable(),
    decided_by: DecidedBySchema,
    config_version: ConfigVersionNumberSchema.optional(),
    signals: boundedArray(DrillDownSignalSchema),
    modifications: boundedArray(ModificationSchema),
  })
  .meta({ id: 'HookEvaluationDetail', description: 'What a worker recorded about one hook evaluation for the drill-down.' });
export type HookEvaluationDetail = z.infer<typeof HookEvaluationDetailSchema>;

/**
 * Milliseconds spent in each stage, from the stage times: `gateway` (received → enqueued),
 * `queue` (enqueued → picked up), `worker` (picked up → decision stored), `delivery` (stored →
 * sent to the agent). Stages measured across two machines' clocks are clamped at 0.
 */
export const HookStageLatenciesSchema = z
  .strictObject({
    gateway_ms: z.int().nonnegative(),
    queue_ms: z.int().nonnegative(),
    worker_ms: z.int().nonnegative(),
    delivery_ms: z.int().nonnegative().optional(),
  })
  .meta({ id: 'HookStageLatencies', description: 'Per-stage latency of one hook: gateway, queue wait, worker, delivery.' });
export type HookStageLatencies = z.infer<typeof HookStageLatenciesSchema>;

/** `GET /v1/operator/hooks/:hookId`: the drill-down of one hook. */
export const HookDrillDownSchema = z
  .strictObject({
    detail: HookEvaluationDetailSchema,
    received_at: EpochMsSchema,
    decided_at: EpochMsSchema,
    /** When the gateway sent the decision to the agent; absent until then (recorded within a second), or when no connection waited. */
    delivered_at: EpochMsSchema.optional(),
    delivered_via: z.enum(['ws', 'http']).optional(),
    stages: HookStageLatenciesSchema,
    /** The agent's answer to each signal of the decision, by signal id; absent while unanswered. */
    answers: z.record(UuidSchema, SignalResponseSchema),
  })
  .meta({ id: 'HookDrillDown', description: "One hook's drill-down: evaluation detail, stage latencies, the agent's answers." });
export type HookDrillDown = z.infer<typeof HookDrillDownSchema>;

/** The stage latencies of the stage times; pure. */
export function stageLatencies(times: { received_at: number; enqueued_at: number; picked_at: number; decided_at: number; delivered_at?: number | undefined }): HookStageLatencies {
  const span = (from: number, to: number) => Math.max(0, Math.round(to - from));
  return {
    gateway_ms: span(times.received_at, times.enqueued_at),
    queue_ms: span(times.enqueued_at, times.picked_at),
    worker_ms: span(times.picked_at, times.decided_at),
    ...(times.delivered_at === undefined ? {} : { delivery_ms: span(times.decided_at, times.delivered_at) }),
  };
}
