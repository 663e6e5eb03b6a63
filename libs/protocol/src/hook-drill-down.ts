/**
 * The drill-down of one hook (docs/console.md "Hook drill-down"): what the worker evaluated, what
 * each oracle said, how long each stage took and how the agent answered. Recorded with the
 * decision of every hook that sent signals (the hooks an operator can reach from a signal row or
 * a timeline entry), read back by `GET /v1/operator/hooks/:hookId`; a hook without signals gets a
 * partial one, and a hook the gateway's failure policy decided its own shape
 * ({@link PolicyHookDrillDownSchema}): no worker's evaluation stands behind its decision.
 */
import { z } from 'zod';
import { ConfigVersionNumberSchema } from './config-version.js';
import { ModificationSchema } from './decision.js';
import { DecidedBySchema, HookDecisionErrorSchema } from './hook-decision.js';
import { EpochMsSchema } from './hook-job.js';
import { IntensitySchema } from './intensity.js';
import { IdSchema, JsonObjectSchema, ShortStringSchema, TextSchema, UuidSchema, boundedArray } from './primitives.js';
import { SignalResponseSchema } from './signal-response.js';
import { SignalTypeSchema } from './signal.js';
import { TraceIdSchema } from './trace-link.js';
import { FailurePolicySchema, HookTriggerSchema } from './trigger.js';

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
    /** The hook's context with secrets redacted; absent when larger than {@link MAX_DRILL_DOWN_CONTEXT_BYTES}, or (a partial drill-down) when its replay-log entry was not found. */
    context: JsonObjectSchema.optional(),
    /** Why `context` is absent: `too_large`, or `not_recorded` (a partial drill-down whose replay-log entry is not there: the log is off, trimmed, or the append failed). */
    context_omitted: z.enum(['too_large', 'not_recorded']).optional(),
    allowed: z.boolean(),
    intensity: IntensitySchema.nullable(),
    decided_by: DecidedBySchema,
    config_version: ConfigVersionNumberSchema.optional(),
    signals: boundedArray(DrillDownSignalSchema),
    modifications: boundedArray(ModificationSchema),
    /** Stored here when the hook was traced and sampled; the drill-down returns it as its own `trace_id`, not in `detail`. */
    trace_id: TraceIdSchema.optional(),
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

/** Longest oracle message a hook summary keeps (the full drill-down keeps 2,000 characters): a summary is written for most hooks. */
export const MAX_SUMMARY_ORACLE_MESSAGE = 256;

/**
 * One oracle verdict as a hook summary stores it, positionally to keep it small (a summary is
 * written for most hooks): `[oracle, outcome, duration_ms, signals]`, then `message` (or null)
 * and `1` when it was skipped, only when there are any.
 */
export const SummaryVerdictSchema = z.tuple([ShortStringSchema, OracleOutcomeSchema, z.number().nonnegative(), z.int().nonnegative(), TextSchema.nullable().optional(), z.literal(1).optional()]);
export type SummaryVerdict = z.infer<typeof SummaryVerdictSchema>;

/**
 * What decide-hook keeps, in the hook record itself (field `summary` of `<prefix>:hook:{<hookId>}`),
 * for a hook evaluated by a worker that has no drill-down record (it sent no signals): the two
 * stage times only the worker knows and every oracle's verdict, as `[enqueued_at, picked_at,
 * verdicts]`, then the trace id only when the hook was traced and sampled. It lives as long as
 * the hook record (the decision TTL, 15 min by default) and is what a partial drill-down is built from.
 */
export const HookEvaluationSummarySchema = z
  .tuple([EpochMsSchema, EpochMsSchema, boundedArray(SummaryVerdictSchema), TraceIdSchema.optional()])
  .meta({ id: 'HookEvaluationSummary', description: "A signal-less hook's stage times and oracle verdicts, kept with its hook record." });
export type HookEvaluationSummary = z.infer<typeof HookEvaluationSummarySchema>;

/** The compact form of a verdict for a summary; the message cut to {@link MAX_SUMMARY_ORACLE_MESSAGE}. */
export function summaryVerdictOf(verdict: OracleVerdict): SummaryVerdict {
  const { oracle, outcome, duration_ms: ms, signals } = verdict;
  const message = verdict.message?.slice(0, MAX_SUMMARY_ORACLE_MESSAGE);
  if (verdict.skipped === true) return [oracle, outcome, ms, signals, message ?? null, 1];
  return message === undefined ? [oracle, outcome, ms, signals] : [oracle, outcome, ms, signals, message];
}

/** The verdict a summary's compact form stands for. */
export function verdictOfSummary([oracle, outcome, duration_ms, signals, message, skipped]: SummaryVerdict): OracleVerdict {
  return { oracle, outcome, duration_ms, signals, ...(message === undefined || message === null ? {} : { message }), ...(skipped === 1 ? { skipped: true } : {}) };
}

/**
 * What a partial drill-down lacks: `signals` and `answers` (there were none), `delivery` (not
 * recorded: no connection waited, the gateway's batch was lost, or another gateway than the
 * hook's owner delivered it), `context` (see `context_omitted`); for a failure-policy decision
 * also `oracles` (no worker reported an evaluation) and `queue` (no worker reported picking the
 * job up, so the enqueue and pick-up times are unknown).
 */
export const DrillDownUnavailableSchema = z.enum(['signals', 'answers', 'delivery', 'context', 'oracles', 'queue']);
export type DrillDownUnavailable = z.infer<typeof DrillDownUnavailableSchema>;

/**
 * Present when the drill-down is partial: the hook sent no signals, so it has no drill-down record
 * and was assembled from its hook record's summary (decision, configuration version, oracle
 * verdicts, stage times) and its replay-log entry (context, rules).
 */
export const DrillDownPartialSchema = z
  .strictObject({
    reason: z.literal('no_signals'),
    /** What is not available for this hook. */
    unavailable: boundedArray(DrillDownUnavailableSchema, 6),
    /** When the hook record, and with it this drill-down, expires. */
    expires_at: EpochMsSchema.optional(),
    /** The rules that fired (the replay-log entry's), when it was found. */
    rules: boundedArray(ShortStringSchema, 256).optional(),
  })
  .meta({ id: 'DrillDownPartial', description: 'Marks a drill-down built from the hook record and the replay log (a hook without signals) and says what it lacks.' });
export type DrillDownPartial = z.infer<typeof DrillDownPartialSchema>;

/** `GET /v1/operator/hooks/:hookId` for a hook a worker evaluated: in full, or partial without signals (see {@link HookDrillDownResponseSchema} for both shapes). */
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
    /** Absent for a full drill-down; see {@link DrillDownPartialSchema}. */
    partial: DrillDownPartialSchema.optional(),
    /** The hook's trace, when the worker traced it and it was sampled; its spans' stage boundaries are the stage times above. */
    trace_id: TraceIdSchema.optional(),
  })
  .meta({ id: 'HookDrillDown', description: "One hook's drill-down: evaluation detail, stage latencies, the agent's answers." });
export type HookDrillDown = z.infer<typeof HookDrillDownSchema>;

/** Longest oracle message a late-evaluation report keeps (as a summary does). */
const MAX_LATE_ORACLE_MESSAGE = MAX_SUMMARY_ORACLE_MESSAGE;

/**
 * What a worker did with a hook whose decision the gateway's failure policy had already stored
 * (field `late` of the hook record, written at most once, only into a hook record without a
 * worker's summary): `skipped` — it picked the job up at or after the deadline and did not
 * evaluate it; `evaluated` — its oracles ran but their decision came second and was not
 * delivered (what it would have been is kept: decision, oracle verdicts, messages cut to 256).
 */
export const HookLateEvaluationSchema = z
  .discriminatedUnion('outcome', [
    z.strictObject({
      outcome: z.literal('skipped'),
      /** When the gateway handed the job to the queue (gateway clock). */
      enqueued_at: EpochMsSchema,
      /** When the worker picked it up (its clock). */
      picked_at: EpochMsSchema,
    }),
    z.strictObject({
      outcome: z.literal('evaluated'),
      enqueued_at: EpochMsSchema,
      picked_at: EpochMsSchema,
      /** When the worker had its decision and tried to store it (its clock). */
      finished_at: EpochMsSchema,
      allowed: z.boolean(),
      intensity: IntensitySchema.nullable(),
      decided_by: DecidedBySchema,
      /** Signals its decision would have carried. */
      signals: z.int().nonnegative(),
      oracles: boundedArray(OracleVerdictSchema),
    }),
  ])
  .meta({ id: 'HookLateEvaluation', description: "What a worker did with a hook the gateway's failure policy had already decided: skipped it, or evaluated it too late." });
export type HookLateEvaluation = z.infer<typeof HookLateEvaluationSchema>;

/** The report of a late evaluation, its oracle messages cut to the length a hook record keeps. */
export function lateEvaluationOf(late: HookLateEvaluation): HookLateEvaluation {
  if (late.outcome === 'skipped') return late;
  return { ...late, oracles: late.oracles.map((verdict) => (verdict.message === undefined ? verdict : { ...verdict, message: verdict.message.slice(0, MAX_LATE_ORACLE_MESSAGE) })) };
}

/** The decision the gateway's failure policy took, as the drill-down shows it. */
export const PolicyDecisionDetailSchema = z
  .strictObject({
    hook_id: UuidSchema,
    agent_id: IdSchema,
    session_id: IdSchema,
    trigger: HookTriggerSchema,
    allowed: z.boolean(),
    /** The trigger's policy: `fail_closed` denied the call, `fail_open` let it through. */
    policy: FailurePolicySchema,
    /** Why the policy decided: `E_TIMEOUT` (no decision by the deadline), `E_UNAVAILABLE` (the job could not be queued), … */
    error: HookDecisionErrorSchema,
    config_version: ConfigVersionNumberSchema.optional(),
    /** The hook's context (redacted), from the replay-log entry of a worker's late evaluation. */
    context: JsonObjectSchema.optional(),
    context_omitted: z.enum(['too_large', 'not_recorded']).optional(),
  })
  .meta({ id: 'PolicyDecisionDetail', description: "A hook decided by the gateway's failure policy: the policy, the error, the hook's identity." });
export type PolicyDecisionDetail = z.infer<typeof PolicyDecisionDetailSchema>;

/**
 * The stages of a failure-policy decision: `waited_ms` (received → the policy's decision stored),
 * and, only when a worker reported picking the job up (see {@link HookLateEvaluationSchema}),
 * `gateway_ms` and `queue_ms`, plus `worker_ms` (picked up → its too-late decision) when it
 * evaluated; `delivery_ms` once the delivery was recorded. An absent stage is unknown, not zero.
 */
export const PolicyStageLatenciesSchema = z
  .strictObject({
    waited_ms: z.int().nonnegative(),
    gateway_ms: z.int().nonnegative().optional(),
    queue_ms: z.int().nonnegative().optional(),
    worker_ms: z.int().nonnegative().optional(),
    delivery_ms: z.int().nonnegative().optional(),
  })
  .meta({ id: 'PolicyStageLatencies', description: 'What is known of the stages of a hook decided by the failure policy.' });
export type PolicyStageLatencies = z.infer<typeof PolicyStageLatenciesSchema>;

/** Marks the drill-down of a hook the gateway's failure policy decided, and says what it lacks. */
export const PolicyDrillDownPartialSchema = DrillDownPartialSchema.extend({ reason: z.literal('failure_policy') }).meta({
  id: 'PolicyDrillDownPartial',
  description: "Marks the drill-down of a hook decided by the gateway's failure policy (built from its hook record) and says what it lacks.",
});
export type PolicyDrillDownPartial = z.infer<typeof PolicyDrillDownPartialSchema>;

/**
 * `GET /v1/operator/hooks/:hookId` for a hook the gateway's failure policy decided (the deadline
 * passed, or the job could not be queued): built from its hook record while it lives.
 */
export const PolicyHookDrillDownSchema = z
  .strictObject({
    policy: PolicyDecisionDetailSchema,
    received_at: EpochMsSchema,
    decided_at: EpochMsSchema,
    delivered_at: EpochMsSchema.optional(),
    delivered_via: z.enum(['ws', 'http']).optional(),
    stages: PolicyStageLatenciesSchema,
    /** What a worker did with the hook afterwards; absent when none reported (none picked it up yet, or it is still evaluating). */
    late: HookLateEvaluationSchema.optional(),
    partial: PolicyDrillDownPartialSchema,
  })
  .meta({ id: 'PolicyHookDrillDown', description: "The drill-down of a hook decided by the gateway's failure policy." });
export type PolicyHookDrillDown = z.infer<typeof PolicyHookDrillDownSchema>;

/** What `GET /v1/operator/hooks/:hookId` answers: a worker's evaluation (full or partial), or a failure-policy decision. */
export const HookDrillDownResponseSchema = z.union([HookDrillDownSchema, PolicyHookDrillDownSchema]).meta({
  id: 'HookDrillDownResponse',
  description: "A hook's drill-down: a worker's evaluation (HookDrillDown) or the gateway's failure-policy decision (PolicyHookDrillDown).",
});
export type HookDrillDownResponse = z.infer<typeof HookDrillDownResponseSchema>;

/** Whether a drill-down is that of a failure-policy decision. */
export function isPolicyDrillDown(drill: HookDrillDownResponse): drill is PolicyHookDrillDown {
  return 'policy' in drill;
}

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
