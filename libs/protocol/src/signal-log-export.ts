/**
 * The signal log as it leaves the control plane: one JSONL line per signal sent, joined with the
 * agent's response (docs/spec/signal-log.md#signal-log-lines), and statistics over those lines
 * (docs/spec/signal-log.md#feedback-loop: intervention history feeds strategy analysis).
 */
import { z } from 'zod';
import { ConfigVersionNumberSchema } from './config-version.js';
import { HookStageLatenciesSchema } from './hook-drill-down.js';
import { IntensitySchema, INTENSITIES } from './intensity.js';
import { IdSchema, ShortStringSchema, TimestampSchema, UuidSchema } from './primitives.js';
import { CONSUMPTION_ACTIONS, ConsumptionActionSchema, isActionValidFor } from './signal-response.js';
import { SignalTypeSchema } from './signal.js';
import { SignalSubjectSchema } from './signal-subject.js';
import { HookTriggerSchema } from './trigger.js';

/**
 * How an answer came about, for clients that cannot send `signal_response` (docs/claude-code.md):
 * - `inferred`: the control plane read the answer from what the client did next (a control
 *   followed by the tool's PostToolUse → `accept_modification`); `consumed` is true.
 * - `not_reported`: the client has no way to report an answer and nothing it did next tells
 *   one; `consumed` is false, but the signal is not "unanswered" — no answer was ever possible.
 * Absent: the agent answered itself (`consumed` true) or has not yet (`consumed` false).
 */
export const SIGNAL_ANSWER_ORIGINS = ['inferred', 'not_reported'] as const;
export const SignalAnswerOriginSchema = z.enum(SIGNAL_ANSWER_ORIGINS).meta({ id: 'SignalAnswerOrigin', description: 'inferred | not_reported: answers of clients that cannot report them.' });
export type SignalAnswerOrigin = z.infer<typeof SignalAnswerOriginSchema>;

/**
 * One exported line. The first six fields are those of docs/spec/signal-log.md#signal-log-lines, in that order; the rest say which
 * signal, rule, configuration and agent the line is about.
 *
 * - `timestamp`: when the signal was sent (the decision time).
 * - `consumed` / `action`: whether the agent answered, and how; `action` is absent while unanswered.
 * - `rule`: the rule inside the oracle that fired, when the oracle names one.
 * - `config_version`: the hooks configuration version that produced the signal; absent for the
 *   built-in defaults a worker runs when no version is published.
 * - `correlation_id`: the hook id, which links the signals of one hook and the gateway's and
 *   worker's log lines; the signal's own id for a signal an operator pushed.
 * - `hook` (and `session_id`, when the agent was offline) are absent for a signal an operator
 *   pushed outside any hook (its `source` is `operator:<id>`).
 * - `latency_ms`: from the hook reaching the gateway to the decision being stored.
 * - `stages`: that latency per stage (gateway, queue wait, worker; see {@link HookStageLatencies});
 *   absent for entries written before it was recorded and for a signal outside any hook.
 * - `responded_at`: when the control plane recorded the agent's response.
 * - `answer`: `inferred` or `not_reported` for a client that cannot report answers (see
 *   {@link SIGNAL_ANSWER_ORIGINS}); absent otherwise.
 * - `subject`: what the signal acted on — tool and (redacted, cut) input, message, suggestions, a
 *   control's changes before → after (see {@link SignalSubjectSchema}); absent for entries written
 *   before it was recorded, and when there was nothing to say.
 */
export const SignalLogLineSchema = z
  .strictObject({
    timestamp: TimestampSchema,
    hook: HookTriggerSchema.optional(),
    intensity: IntensitySchema,
    source: ShortStringSchema,
    consumed: z.boolean(),
    action: ConsumptionActionSchema.optional(),
    signal_id: UuidSchema,
    type: SignalTypeSchema,
    rule: ShortStringSchema.optional(),
    config_version: ConfigVersionNumberSchema.optional(),
    agent_id: IdSchema,
    session_id: IdSchema.optional(),
    correlation_id: UuidSchema,
    latency_ms: z.int().nonnegative().optional(),
    stages: HookStageLatenciesSchema.omit({ delivery_ms: true }).optional(),
    responded_at: TimestampSchema.optional(),
    answer: SignalAnswerOriginSchema.optional(),
    subject: SignalSubjectSchema.optional(),
  })
  .superRefine((line, ctx) => {
    if (line.answer === 'inferred' && !line.consumed) ctx.addIssue({ code: 'custom', path: ['answer'], message: 'an inferred answer is a consumed signal' });
    if (line.answer === 'not_reported' && line.consumed) ctx.addIssue({ code: 'custom', path: ['answer'], message: 'a signal whose answer was not reported is not consumed' });
    if (line.consumed !== (line.action !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['action'], message: 'action is present exactly when the signal was consumed' });
    }
    if (line.action !== undefined && !isActionValidFor(line.intensity, line.action)) {
      ctx.addIssue({ code: 'custom', path: ['action'], message: `action "${line.action}" cannot answer a ${line.intensity} signal` });
    }
  })
  .meta({ id: 'SignalLogLine', description: 'One exported signal-log line: a signal joined with the response to it.' });
export type SignalLogLine = z.infer<typeof SignalLogLineSchema>;

/** The filters an export or a statistic applies; all optional, combined with AND. */
export const SignalLogFilterSchema = z
  .strictObject({
    /** Signals sent at or after this time. */
    since: TimestampSchema.optional(),
    /** Signals sent before this time (exclusive). */
    until: TimestampSchema.optional(),
    agent_id: IdSchema.optional(),
    session_id: IdSchema.optional(),
    hook: HookTriggerSchema.optional(),
    intensity: IntensitySchema.optional(),
    /** The oracle that sent the signal. */
    source: ShortStringSchema.optional(),
  })
  .meta({ id: 'SignalLogFilter', description: 'Filters of a signal-log export: time range, agent, session, hook, intensity, oracle.' });
export type SignalLogFilter = z.infer<typeof SignalLogFilterSchema>;

const countsOf = <T extends string>(keys: readonly T[]) => z.partialRecord(z.enum(keys as [T, ...T[]]), z.int().nonnegative());

/** Counts over a group of signals (a hook, an oracle, an intensity, or all of them). */
export const SignalLogGroupStatsSchema = z
  .strictObject({
    signals: z.int().nonnegative(),
    /** Signals the agent answered. */
    consumed: z.int().nonnegative(),
    /** Signals without an answer (yet), from clients that can answer. */
    unanswered: z.int().nonnegative(),
    /** Signals of clients that cannot report an answer, and none could be inferred (`answer: not_reported`); not counted as unanswered. */
    not_reported: z.int().nonnegative().optional(),
    /** Of the consumed signals, those whose answer was inferred (`answer: inferred`). */
    inferred: z.int().nonnegative().optional(),
    /** Signals per intensity. */
    intensities: countsOf(INTENSITIES),
    /** Answers per action. */
    actions: countsOf(CONSUMPTION_ACTIONS),
  })
  .meta({ id: 'SignalLogGroupStats' });
export type SignalLogGroupStats = z.infer<typeof SignalLogGroupStatsSchema>;

/** How often one action answered signals of its intensity. */
export const SignalLogActionStatsSchema = z
  .strictObject({
    intensity: IntensitySchema,
    count: z.int().nonnegative(),
    /** `count` / answered signals of `intensity` (0…1): e.g. the share of blocks followed by `retry_after_fix`. */
    share: z.number().min(0).max(1),
  })
  .meta({ id: 'SignalLogActionStats' });
export type SignalLogActionStats = z.infer<typeof SignalLogActionStatsSchema>;

/** Decision latency over the signals counted, in milliseconds (signals without a known latency are left out). */
export const LatencyStatsSchema = z
  .strictObject({
    count: z.int().nonnegative(),
    p50: z.number().nonnegative(),
    p95: z.number().nonnegative(),
    max: z.number().nonnegative(),
  })
  .meta({ id: 'LatencyStats' });
export type LatencyStats = z.infer<typeof LatencyStatsSchema>;

/** Statistics over the signal log (with the filter applied). Map keys are hook triggers, oracle names, intensities, actions, rule names and configuration versions. */
export const SignalLogStatsSchema = z
  .strictObject({
    filter: SignalLogFilterSchema,
    /** Time of the first and last signal counted; absent when none was. */
    first_at: TimestampSchema.optional(),
    last_at: TimestampSchema.optional(),
    total: SignalLogGroupStatsSchema,
    by_hook: z.record(z.string(), SignalLogGroupStatsSchema),
    by_source: z.record(z.string(), SignalLogGroupStatsSchema),
    by_intensity: z.record(z.string(), SignalLogGroupStatsSchema),
    by_action: z.record(z.string(), SignalLogActionStatsSchema),
    by_rule: z.record(z.string(), SignalLogGroupStatsSchema),
    by_config_version: z.record(z.string(), SignalLogGroupStatsSchema),
    latency_ms: LatencyStatsSchema.optional(),
  })
  .meta({ id: 'SignalLogStats', description: 'Signal-log statistics per hook, oracle, intensity, action, rule and configuration version.' });
export type SignalLogStats = z.infer<typeof SignalLogStatsSchema>;

function emptyGroup(): SignalLogGroupStats {
  return { signals: 0, consumed: 0, unanswered: 0, intensities: {}, actions: {} };
}

function add(group: SignalLogGroupStats, line: SignalLogLine): void {
  group.signals += 1;
  group.intensities[line.intensity] = (group.intensities[line.intensity] ?? 0) + 1;
  if (line.action === undefined) {
    if (line.answer === 'not_reported') group.not_reported = (group.not_reported ?? 0) + 1;
    else group.unanswered += 1;
    return;
  }
  group.consumed += 1;
  if (line.answer === 'inferred') group.inferred = (group.inferred ?? 0) + 1;
  group.actions[line.action] = (group.actions[line.action] ?? 0) + 1;
}

function addTo(map: Record<string, SignalLogGroupStats>, key: string, line: SignalLogLine): void {
  const group = map[key] ?? (map[key] = emptyGroup());
  add(group, line);
}

/** The value below which `q` (0…1) of the sorted values lie (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? 0;
}

/**
 * Statistics over exported lines. Pure: the store reads and filters the log, this counts.
 * `by_action[a].share` is the fraction of answered signals of `a`'s intensity that were answered
 * with `a`, so `by_action.retry_after_fix.share` and `by_action.abort.share` say how blocks end.
 */
export function signalLogStats(lines: Iterable<SignalLogLine>, filter: SignalLogFilter = {}): SignalLogStats {
  const stats: SignalLogStats = {
    filter,
    total: emptyGroup(),
    by_hook: {},
    by_source: {},
    by_intensity: {},
    by_action: {},
    by_rule: {},
    by_config_version: {},
  };
  const latencies: number[] = [];
  for (const line of lines) {
    add(stats.total, line);
    if (line.hook !== undefined) addTo(stats.by_hook, line.hook, line);
    addTo(stats.by_source, line.source, line);
    addTo(stats.by_intensity, line.intensity, line);
    if (line.rule !== undefined) addTo(stats.by_rule, line.rule, line);
    addTo(stats.by_config_version, line.config_version === undefined ? 'defaults' : String(line.config_version), line);
    if (line.latency_ms !== undefined) latencies.push(line.latency_ms);
    if (stats.first_at === undefined || line.timestamp < stats.first_at) stats.first_at = line.timestamp;
    if (stats.last_at === undefined || line.timestamp > stats.last_at) stats.last_at = line.timestamp;
  }
  for (const action of CONSUMPTION_ACTIONS) {
    for (const intensity of INTENSITIES) {
      if (!isActionValidFor(intensity, action)) continue;
      const count = stats.by_intensity[intensity]?.actions[action] ?? 0;
      if (count === 0) continue;
      const answered = stats.by_intensity[intensity]?.consumed ?? 0;
      stats.by_action[action] = { intensity, count, share: answered === 0 ? 0 : count / answered };
    }
  }
  if (latencies.length > 0) {
    latencies.sort((a, b) => a - b);
    stats.latency_ms = {
      count: latencies.length,
      p50: quantile(latencies, 0.5),
      p95: quantile(latencies, 0.95),
      max: latencies[latencies.length - 1] ?? 0,
    };
  }
  return stats;
}

