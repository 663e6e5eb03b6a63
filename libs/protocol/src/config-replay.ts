/**
 * Replaying a candidate hooks configuration against recorded traffic (docs/hooks.md, "Replay a
 * candidate configuration"): what a worker records per decided hook (the replay log), what an
 * operator asks for (`POST /v1/operator/config/replay`), and the report a replay produces.
 */
import { z } from 'zod';
import { AgentIdentitySchema } from './agent.js';
import type { HookDecision } from './hook-decision.js';
import { EpochMsSchema } from './hook-job.js';
import { IdSchema, JsonObjectSchema, ShortStringSchema, TimestampSchema, UuidSchema, boundedArray } from './primitives.js';
import { DECISION_OUTCOMES, decisionNeedsApproval, decisionOutcomeSchema, isStrongerOutcome, outcomeOfParts, signalRuleName, type DecisionOutcome } from './decision-outcome.js';
import { HookTriggerSchema } from './trigger.js';

/**
 * How strongly a decision intervened, weakest first: `allow` is a decision with no signal (or a
 * failure policy that let the call through); the others are the decision's intensity. This is
 * what a replay record stores (with `approval` beside it); changes are counted between
 * {@link ReplayOutcome}s, the classification shadow mode uses too (decision-outcome.ts).
 */
export const REPLAY_LEVELS = ['allow', 'aid', 'prompt', 'control', 'block'] as const;
export const ReplayLevelSchema = z.enum(REPLAY_LEVELS).meta({ id: 'ReplayLevel', description: 'allow (no intervention), aid, prompt, control or block.' });
export type ReplayLevel = z.infer<typeof ReplayLevelSchema>;

/** The level of a decision (see {@link ReplayLevelSchema}). */
export function replayLevelOf(decision: Pick<HookDecision, 'intensity'>): ReplayLevel {
  return decision.intensity ?? 'allow';
}

/** Whether `a` intervenes more strongly than `b`. */
export function isStrongerLevel(a: ReplayLevel, b: ReplayLevel): boolean {
  return isStrongerOutcome(a, b);
}

/**
 * What a decision does, as a replay counts changes: its level, or `approval` when a rule holds
 * it for a person (the same values and order as `ShadowOutcome`, from the same function).
 */
export const ReplayOutcomeSchema = decisionOutcomeSchema().meta({
  id: 'ReplayOutcome',
  description: 'allow (no intervention), aid, prompt, control, block, or approval (a rule holds the call for a person).',
});
export type ReplayOutcome = DecisionOutcome;
export const REPLAY_OUTCOMES = DECISION_OUTCOMES;

/**
 * The rules a decision's signals name, as `<oracle>/<rule>` (just `<oracle>` when the oracle names
 * no rule), sorted and without repeats: the same names the signal log's `source` and `rule` give.
 */
export function decisionRulesOf(decision: Pick<HookDecision, 'signals'>): string[] {
  return [...new Set(decision.signals.map(signalRuleName))].sort();
}

export { decisionNeedsApproval };

/** The part of a decision a replay compares with. */
export const ReplayDecisionSchema = z
  .strictObject({
    level: ReplayLevelSchema,
    decided_by: z.enum(['oracles', 'failure_policy']),
    rules: boundedArray(ShortStringSchema, 256),
    /** A rule asked for a person's approval (the decision was a block waiting for it). */
    approval: z.boolean(),
  })
  .meta({ id: 'ReplayDecision', description: 'A decision as a replay compares it: level, who decided, the rules that fired, approval.' });
export type ReplayDecision = z.infer<typeof ReplayDecisionSchema>;

/** The outcome of a recorded or replayed decision (see {@link ReplayOutcomeSchema}). */
export function replayOutcomeOf(decision: Pick<ReplayDecision, 'level' | 'approval'>): ReplayOutcome {
  return outcomeOfParts(decision.level, decision.approval);
}

/** {@link ReplayDecision} of a full decision. */
export function replayDecisionOf(decision: HookDecision): ReplayDecision {
  return { level: replayLevelOf(decision), decided_by: decision.decided_by, rules: decisionRulesOf(decision), approval: decisionNeedsApproval(decision) };
}

/**
 * One entry of the replay log, as a worker writes it after evaluating a hook and as a replay reads
 * it back (parsed with this schema: an entry of another release that does not parse is skipped
 * and counted, never guessed at).
 *
 * `context` is the hook context the oracles evaluated, redacted like every free text the control
 * plane stores (`redactFreeText`: secret-named fields and credentials inside strings). It is
 * absent when the redacted context was larger than the recorder's cap (`context_bytes` says how
 * large): such a hook is counted by a replay as skipped, never evaluated on a part of its input.
 */
export const ReplayRecordSchema = z
  .strictObject({
    hook_id: UuidSchema,
    trigger: HookTriggerSchema,
    agent: AgentIdentitySchema,
    session_id: IdSchema,
    /** When the worker evaluated the hook (epoch ms on its clock): the replay's simulated clock. */
    at: EpochMsSchema,
    /** The configuration version that decided; absent for the built-in defaults. */
    config_version: z.int().nonnegative().optional(),
    decision: ReplayDecisionSchema,
    context: JsonObjectSchema.optional(),
    /** Size in bytes of the redacted context as JSON. */
    context_bytes: z.int().nonnegative(),
  })
  .meta({ id: 'ReplayRecord', description: 'One decided hook as the replay log keeps it: redacted context, decision, agent, trigger, config version.' });
export type ReplayRecord = z.infer<typeof ReplayRecordSchema>;

/** Most hooks one replay may evaluate. */
export const MAX_REPLAY_LIMIT = 100_000;
/** Hooks a replay evaluates when the request does not say. */
export const DEFAULT_REPLAY_LIMIT = 10_000;
/** Examples a report lists per kind (changes, approvals), at most. */
export const MAX_REPLAY_EXAMPLES = 50;

/**
 * Body of `POST /v1/operator/config/replay`: the candidate text and which recorded hooks to
 * evaluate it on. `since`/`until` are ISO 8601 times (the CLI turns `--since 24h` into one).
 */
export const ConfigReplayRequestSchema = z
  .strictObject({
    source: z.string().min(1, 'must not be empty'),
    since: TimestampSchema,
    /** @defaultValue now (when the job starts) */
    until: TimestampSchema.optional(),
    agent: IdSchema.optional(),
    trigger: HookTriggerSchema.optional(),
    /** At most this many hooks, the oldest of the window first. @defaultValue {@link DEFAULT_REPLAY_LIMIT} */
    limit: z.int().min(1).max(MAX_REPLAY_LIMIT).optional(),
  })
  .meta({ id: 'ConfigReplayRequest', description: 'A candidate hooks.yaml and the recorded window to replay it on.' });
export type ConfigReplayRequest = z.infer<typeof ConfigReplayRequestSchema>;

/** The data of a replay job (BullMQ): the request, resolved, and who asked. */
export const ConfigReplayJobDataSchema = z
  .strictObject({
    replay_id: UuidSchema,
    source: z.string().min(1),
    since_ms: EpochMsSchema,
    until_ms: EpochMsSchema,
    agent: IdSchema.optional(),
    trigger: HookTriggerSchema.optional(),
    limit: z.int().min(1).max(MAX_REPLAY_LIMIT),
    requested_by: ShortStringSchema,
    requested_at: TimestampSchema,
  })
  .meta({ id: 'ConfigReplayJobData', description: 'The BullMQ job data of one configuration replay.' });
export type ConfigReplayJobData = z.infer<typeof ConfigReplayJobDataSchema>;

/** Every `from→to` pair of two different outcomes (6 × 5). */
const MAX_REPLAY_TRANSITIONS = DECISION_OUTCOMES.length * (DECISION_OUTCOMES.length - 1);

/** `from → to` between two outcomes, e.g. `allow→block` (the shadow's transitions name the same pairs). */
export const ReplayTransitionSchema = z
  .strictObject({ from: ReplayOutcomeSchema, to: ReplayOutcomeSchema, count: z.int().positive() })
  .meta({ id: 'ReplayTransition', description: 'How many hooks moved from one outcome to another.' });
export type ReplayTransition = z.infer<typeof ReplayTransitionSchema>;

/** One hook whose decision the candidate changes (or that would need approval). */
export const ReplayExampleSchema = z
  .strictObject({
    hook_id: UuidSchema,
    agent_id: IdSchema,
    session_id: IdSchema,
    trigger: HookTriggerSchema,
    at: TimestampSchema,
    config_version: z.int().nonnegative().optional(),
    before: ReplayDecisionSchema,
    after: ReplayDecisionSchema,
    /** The recorded (redacted) context. */
    context: JsonObjectSchema,
  })
  .meta({ id: 'ReplayExample', description: 'A recorded hook with its recorded and its replayed decision.' });
export type ReplayExample = z.infer<typeof ReplayExampleSchema>;

/**
 * A changed hook is attributed to the rules of the side that intervenes more: the candidate's
 * rules when it is stricter (they now fire), the recorded rules when it is looser (they no longer
 * fire, or fire more softly). `(none)` when that side names no rule (a failure policy).
 */
export const ReplayRuleChangeSchema = z
  .strictObject({
    rule: ShortStringSchema,
    changed: z.int().positive(),
    transitions: boundedArray(ReplayTransitionSchema, MAX_REPLAY_TRANSITIONS),
  })
  .meta({ id: 'ReplayRuleChange', description: 'Changed hooks attributed to one rule, by transition.' });
export type ReplayRuleChange = z.infer<typeof ReplayRuleChangeSchema>;

export const ReplayAgentChangeSchema = z
  .strictObject({ agent_id: IdSchema, total: z.int().nonnegative(), changed: z.int().nonnegative(), transitions: boundedArray(ReplayTransitionSchema, MAX_REPLAY_TRANSITIONS) })
  .meta({ id: 'ReplayAgentChange', description: 'Hooks replayed and changed for one agent.' });
export type ReplayAgentChange = z.infer<typeof ReplayAgentChangeSchema>;

/** An oracle of the candidate that did not answer on some recorded hooks. */
export const ReplayOracleErrorSchema = z
  .strictObject({
    oracle: ShortStringSchema,
    /** `threw`, `timeout` or `invalid` (see `OracleRunReport.outcome`). */
    outcome: ShortStringSchema,
    count: z.int().positive(),
    /** The first error's message. */
    message: z.string().max(4096),
    example_hook_id: UuidSchema,
  })
  .meta({ id: 'ReplayOracleError', description: 'Runs of one candidate oracle that threw, timed out or answered invalidly.' });
export type ReplayOracleError = z.infer<typeof ReplayOracleErrorSchema>;

/** The result of a replay. */
export const ConfigReplayReportSchema = z
  .strictObject({
    since: TimestampSchema,
    until: TimestampSchema,
    /** Hooks evaluated with the candidate. */
    total: z.int().nonnegative(),
    unchanged: z.int().nonnegative(),
    /** Hooks whose outcome differs (`total - unchanged`). */
    changed: z.int().nonnegative(),
    /** Hooks whose outcome is the same but whose firing rules differ. */
    rules_changed: z.int().nonnegative(),
    /** Recorded hooks not evaluated: context over the recorder's cap, or an entry that does not parse. */
    skipped: z.strictObject({ oversize: z.int().nonnegative(), unreadable: z.int().nonnegative() }),
    /** The window held more matching hooks than `limit`: the newest were left out. */
    truncated: z.boolean(),
    /** Configuration versions that decided the recorded hooks (`defaults` for the built-in ones), with their counts. */
    recorded_versions: boundedArray(z.strictObject({ version: z.union([z.int().nonnegative(), z.literal('defaults')]), count: z.int().positive() }), 1000),
    transitions: boundedArray(ReplayTransitionSchema, MAX_REPLAY_TRANSITIONS),
    by_rule: boundedArray(ReplayRuleChangeSchema, 1000),
    by_agent: boundedArray(ReplayAgentChangeSchema, 1000),
    examples: boundedArray(ReplayExampleSchema, MAX_REPLAY_EXAMPLES),
    /** Candidate decisions a rule would have held for a person's approval. */
    approvals: z.strictObject({ count: z.int().nonnegative(), examples: boundedArray(ReplayExampleSchema, MAX_REPLAY_EXAMPLES) }),
    oracle_errors: boundedArray(ReplayOracleErrorSchema, 1000),
  })
  .meta({ id: 'ConfigReplayReport', description: 'What a candidate configuration changes over recorded hooks.' });
export type ConfigReplayReport = z.infer<typeof ConfigReplayReportSchema>;

export const ConfigReplayStateSchema = z.enum(['waiting', 'active', 'completed', 'failed', 'cancelled']);
export type ConfigReplayState = z.infer<typeof ConfigReplayStateSchema>;

/** Progress a replay job reports while it runs (`job.updateProgress`). */
export const ConfigReplayProgressSchema = z
  .strictObject({
    /** Hooks read from the log so far. */
    read: z.int().nonnegative(),
    /** Share of the time window covered so far, 0 to 1. */
    fraction: z.number().min(0).max(1),
  })
  .meta({ id: 'ConfigReplayProgress', description: 'Hooks read and share of the window covered.' });
export type ConfigReplayProgress = z.infer<typeof ConfigReplayProgressSchema>;

/** `GET /v1/operator/config/replay/:id` (and the answer of the POST, 202). */
export const ConfigReplayStatusSchema = z
  .strictObject({
    id: UuidSchema,
    state: ConfigReplayStateSchema,
    progress: ConfigReplayProgressSchema,
    requested_by: ShortStringSchema,
    requested_at: TimestampSchema,
    report: ConfigReplayReportSchema.optional(),
    /** Why it failed (state `failed`). */
    error: z.string().max(4096).optional(),
  })
  .meta({ id: 'ConfigReplayStatus', description: 'Where a replay job stands, and its report once completed.' });
export type ConfigReplayStatus = z.infer<typeof ConfigReplayStatusSchema>;

/** The path parameter of a replay. */
export const ConfigReplayIdSchema = UuidSchema;
