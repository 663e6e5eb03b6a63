/**
 * What the worker does with one hook job: evaluate the hook's oracles and store the decision,
 * which routes it to the gateway waiting for it.
 */
import { randomUUID } from 'node:crypto';
import { evaluateHook } from '@ahp/oracles';
import type { Oracle, OracleRunReport } from '@ahp/oracles';
import { DEFAULT_OPERATOR_SIGNAL_TTL_MS, type HookDecision, type HookJobData, type HookLateEvaluation, type OracleVerdict, type Signal } from '@ahp/protocol';
import type { HookDetailStore, HookProcessor, HookStore, Logger, OperatorSignalStore } from '@ahp/store';
import type { HookEvaluator } from './hooks-config.js';
import type { JobTracing } from './job-tracing.js';
import type { ToolApprovals } from './tool-approvals.js';
import type { ReplayRecorder } from './replay-recorder.js';
import type { HookProcessorMetrics } from './metrics.js';
import type { ShadowRunner } from './shadow.js';

/** Options of {@link createHookProcessor}. */
export interface HookProcessorOptions {
  /** Only `decide` is used: first writer wins, so a duplicate evaluation changes nothing. */
  readonly hooks: Pick<HookStore, 'decide'>;
  /**
   * What evaluates a job: called once per job, when it starts, so a configuration swapped in
   * meanwhile applies from the next job on and every decision comes from one version.
   * @defaultValue {@link oraclesEvaluator} of `oracles`
   */
  readonly evaluator?: () => HookEvaluator;
  /** In evaluation order (built-ins first, then plugins); used when `evaluator` is not given. */
  readonly oracles?: readonly Oracle[];
  /** Time each oracle gets; see `AHP_ORACLE_BUDGET_MS`. */
  readonly budgetMs: number;
  readonly logger: Logger;
  /** Epoch milliseconds. @defaultValue `Date.now` */
  readonly now?: () => number;
  /** Mints signal ids. @defaultValue `crypto.randomUUID` */
  readonly newId?: () => string;
  /**
   * Turns a rule's "approval required" into the request and the wait, or into the person's
   * decision (see tool-approvals.ts). Runs before `decide`, so the request exists before the
   * decision naming it is stored. @defaultValue none: such a decision stays a plain block
   */
  readonly approvals?: ToolApprovals;
  /** Told of each job's queue wait, outcome and oracle runs (Prometheus, see metrics.ts). @defaultValue none */
  readonly metrics?: HookProcessorMetrics;
  /**
   * Late aid of `post-*` hooks (docs/spec/spectrum-and-signals.md#late-aid). With it, a
   * `post-*` hook's oracles may run up to `windowMs` past the hook's deadline, and when the
   * gateway has meanwhile answered the hook by failure policy, the aid signals of this
   * evaluation are pushed to the agent (`sendHookAid`: once per hook, answered like any pushed
   * signal). The action the hook reported already happened, so nothing waits on this advice.
   * @defaultValue none: `post-*` hooks are cut at their deadline like every trigger
   */
  readonly lateAid?: { readonly store: Pick<OperatorSignalStore, 'sendHookAid'>; readonly windowMs: number; readonly ttlMs?: number };
  /**
   * Records each evaluated hook (context and the oracles' decision) in the replay log, started
   * right after the decision's write has left and awaited alongside its reply, so the job takes
   * no extra round trip (replay-recorder.ts). @defaultValue none
   */
  readonly recorder?: ReplayRecorder;
  /**
   * Where a job the gateway's failure policy answered first is reported, for the hook's
   * drill-down: picked up after its deadline (skipped), or evaluated but stored second
   * (HookDetailStore.recordLate; one small write, only on those paths). Best-effort: a failure
   * is logged. @defaultValue none
   */
  readonly lateReports?: Pick<HookDetailStore, 'recordLate'>;
  /** Spans of each job (job-tracing.ts), only when tracing is on. @defaultValue none */
  readonly tracing?: JobTracing;
  /**
   * Shadow mode (shadow.ts): told of each first-stored decision, as the oracles produced it,
   * after `decide` stored and routed it; it must return at once. @defaultValue none
   */
  readonly shadow?: Pick<ShadowRunner, 'observe'>;
}

/** Counters since the processor was created (reported at shutdown). */
export interface HookProcessorStats {
  /** Jobs evaluated and handed to `decide`, first or not. */
  evaluated: number;
  /** Evaluations whose decision was stored and delivered. */
  decided: number;
  /** Evaluations that found a decision already stored (a re-run after a stalled job, or the gateway's failure policy at the deadline). */
  duplicates: number;
  /** Jobs picked up after their deadline and not evaluated. */
  skippedPastDeadline: number;
  /** Evaluations that ended in a failure-policy decision because an oracle failed. */
  oracleFailures: number;
  /** `post-*` evaluations that finished after the hook was answered and pushed their aid. */
  lateAid: number;
}

/** The job processor with its counters. */
export interface OracleHookProcessor {
  readonly process: HookProcessor;
  stats(): Readonly<HookProcessorStats>;
}

/**
 * Creates the processor the hook worker runs for every job.
 *
 * - A job picked up at or after its `deadline_at` is skipped: the gateway has already answered
 *   by failure policy, and nobody waits for a later answer.
 * - Otherwise the hook's oracles are evaluated (no oracle gets more than the time left before the
 *   deadline) and the decision is stored with `decide`. Whether it was the first decision is
 *   logged and counted; a duplicate is never delivered twice, because `decide` routes only the
 *   first one.
 * - When `decide` fails (Redis unavailable), the job fails and BullMQ retries it; a retry
 *   evaluates again, which is harmless.
 */
export function createHookProcessor(options: HookProcessorOptions): OracleHookProcessor {
  const { hooks, budgetMs, logger } = options;
  const fixed = oraclesEvaluator(options.oracles ?? []);
  const evaluatorFor = options.evaluator ?? (() => fixed);
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomUUID;
  const stats: HookProcessorStats = { evaluated: 0, decided: 0, duplicates: 0, skippedPastDeadline: 0, oracleFailures: 0, lateAid: 0 };
  const lateAid = options.lateAid !== undefined && options.lateAid.windowMs > 0 ? options.lateAid : undefined;

  async function processJob(job: HookJobData, meta: { jobId: string; attemptsMade: number; enqueuedAt?: number }): Promise<void> {
    const fields = {
      agentId: job.agent.id,
      sessionId: job.session_id,
      correlationId: job.hook_id,
      jobId: meta.jobId,
      trigger: job.trigger,
      attemptsMade: meta.attemptsMade,
    };
    const startedAt = now();
    options.metrics?.jobStarted(job.trigger, startedAt - job.enqueued_at);
    const trace = options.tracing?.begin(job, meta.enqueuedAt ?? job.enqueued_at, startedAt);
    // Only a post-* hook is worth evaluating after its deadline: its aid can still reach the agent.
    const evaluateUntil = lateAid !== undefined && isPostTrigger(job.trigger) ? job.deadline_at + lateAid.windowMs : job.deadline_at;
    if (startedAt >= evaluateUntil) {
      stats.skippedPastDeadline += 1;
      trace?.end();
      options.metrics?.jobFinished('skipped_past_deadline', job.trigger, undefined);
      logger.info(
        { ...fields, deadlineAt: job.deadline_at, lateByMs: startedAt - job.deadline_at, queuedMs: startedAt - job.enqueued_at },
        'hook job skipped: its deadline passed and the gateway answered by failure policy',
      );
      await reportLate(job.hook_id, { outcome: 'skipped', enqueued_at: Math.round(meta.enqueuedAt ?? job.enqueued_at), picked_at: Math.round(startedAt) }, fields);
      return;
    }

    const evaluator = evaluatorFor();
    const configVersion = evaluator.version;
    // The drill-down's oracle verdicts (stored with the decision: in full with signals, as the hook record's summary without).
    const oracles: OracleVerdict[] = [];
    const evaluated = await evaluator.evaluate(
      {
        hookId: job.hook_id,
        trigger: job.trigger,
        context: job.context,
        agent: job.agent,
        sessionId: job.session_id,
      },
      {
        now: () => new Date(now()),
        newId,
        budgetMs,
        deadlineAt: evaluateUntil,
        // The job data was parsed for this job alone: oracles may see it frozen in place.
        inputIsOwned: true,
        onOracleSettled: (report) => {
          logOracle(logger, { ...fields, configVersion }, report);
          options.metrics?.oracleSettled(report);
          oracles.push(verdictOf(report));
          trace?.oracle(report);
        },
      },
    );
    const decision = options.approvals === undefined ? evaluated : await options.approvals(job, evaluated, { now, newId });
    stats.evaluated += 1;
    if (decision.decided_by === 'failure_policy') stats.oracleFailures += 1;

    const grace = evaluator.answerGraceMs?.(job.trigger);
    const traceId = trace?.traceId;
    const evaluation = { agentId: job.agent.id, sessionId: job.session_id, enqueuedAt: meta.enqueuedAt ?? job.enqueued_at, pickedAt: startedAt, context: job.context, oracles, ...(traceId === undefined ? {} : { traceId }) };
    // One instant for the stored decided_at and the spans' evaluate → decision-write boundary.
    const decidedAt = now();
    const store = (traceparent?: string) =>
      hooks.decide(job.hook_id, decision, decidedAt, { evaluation, ...(grace === undefined ? {} : { answerGraceMs: grace }), ...(traceparent === undefined ? {} : { traceparent }) });
    const storing = trace === undefined ? store() : trace.decide(decidedAt, store);
    // node-redis writes what was queued in this turn of the event loop from a setImmediate that
    // `decide` just scheduled; the recording starts in the next one, so its redaction never delays
    // the decision's write, and its reply is awaited alongside (it never rejects).
    const recorder = options.recorder;
    const recorded = recorder === undefined ? undefined : new Promise<void>((resolve) => setImmediate(() => void recorder(job, evaluated, configVersion).then(resolve)));
    const stored = await storing;
    await recorded;
    if (!stored.first && stored.decision.decided_by === 'failure_policy') {
      // The gateway's deadline won the race: what this evaluation found is kept for the drill-down (the script ignores a stored decision a worker made).
      const late: HookLateEvaluation = {
        outcome: 'evaluated',
        enqueued_at: Math.round(evaluation.enqueuedAt),
        picked_at: Math.round(startedAt),
        finished_at: Math.round(decidedAt),
        allowed: decision.allowed,
        intensity: decision.intensity,
        decided_by: decision.decided_by,
        signals: decision.signals.length,
        oracles,
      };
      await reportLate(job.hook_id, late, fields);
    }
    // Only now, with the live decision on its way to the agent; a duplicate was shadowed by its first run.
    if (stored.first) options.shadow?.observe(job, evaluated, { startedAt });
    const outcome = {
      ...fields,
      allowed: decision.allowed,
      intensity: decision.intensity,
      decidedBy: decision.decided_by,
      configVersion: decision.config_version,
      errorCode: decision.error?.code,
      signals: decision.signals.length,
      durationMs: now() - startedAt,
      queuedMs: startedAt - job.enqueued_at,
    };
    const late = !stored.first && lateAid !== undefined ? lateAidOf(job, decision, stored.decision) : [];
    if (late.length > 0 && lateAid !== undefined) {
      const at = now();
      const sent = await lateAid.store.sendHookAid(
        { agentId: job.agent.id, sessionId: job.session_id, hookId: job.hook_id, trigger: job.trigger, context: job.context },
        late,
        at + (lateAid.ttlMs ?? DEFAULT_OPERATOR_SIGNAL_TTL_MS),
        at,
      );
      if (sent.outcome === 'sent') {
        stats.lateAid += 1;
        options.metrics?.jobFinished('late_aid', job.trigger, outcome.durationMs);
        logger.info({ ...outcome, lateSignals: late.length, pushedVia: sent.gatewayId }, 'post-* hook answered before its oracles finished: their aid was pushed to the agent');
        return;
      }
      logger.info({ ...outcome, lateSignals: late.length, lateAidOutcome: sent.outcome }, 'late aid of a post-* hook not pushed');
    }
    options.metrics?.jobFinished(decision.decided_by === 'failure_policy' ? 'oracle_failure' : stored.first ? 'decided' : 'duplicate', job.trigger, outcome.durationMs);
    if (stored.first) {
      stats.decided += 1;
      logger.info(outcome, 'hook decided');
    } else {
      stats.duplicates += 1;
      logger.info(
        { ...outcome, storedDecidedBy: stored.decision.decided_by, storedIntensity: stored.decision.intensity },
        'hook already decided: this evaluation was a duplicate and is not delivered',
      );
    }
  }

  /** Hands a late report to `lateReports`; never throws (the drill-down only misses it). */
  async function reportLate(hookId: string, late: HookLateEvaluation, fields: Record<string, unknown>): Promise<void> {
    try {
      await options.lateReports?.recordLate(hookId, late);
    } catch (error) {
      logger.warn({ ...fields, error }, "recording the late evaluation failed; the hook's drill-down will not show it");
    }
  }

  return { process: processJob, stats: () => ({ ...stats }) };
}

function verdictOf(report: OracleRunReport): OracleVerdict {
  return {
    oracle: report.oracle,
    outcome: report.outcome,
    duration_ms: Math.round(report.durationMs * 100) / 100,
    signals: report.signals,
    ...(report.message === undefined ? {} : { message: report.message.slice(0, 2_000) }),
    ...(report.skipped === true ? { skipped: true } : {}),
  };
}

function isPostTrigger(trigger: string): boolean {
  return trigger.startsWith('post-');
}

/**
 * The aid signals of `evaluated` the agent has not had: only when the stored decision was the
 * failure policy's (the gateway timed out, or an earlier run's oracle failed) and this run's
 * oracles answered. A stored oracle decision already carried its aid to the agent.
 */
function lateAidOf(job: HookJobData, evaluated: HookDecision, stored: HookDecision): Signal[] {
  if (!isPostTrigger(job.trigger) || stored.decided_by !== 'failure_policy' || evaluated.decided_by !== 'oracles') return [];
  return evaluated.signals.filter((signal) => signal.header.intensity === 'aid');
}

/** The built-in way of evaluating: a fixed list of oracles, no configuration version (what a worker does while none is published). */
export function oraclesEvaluator(oracles: readonly Oracle[]): HookEvaluator {
  return {
    version: undefined,
    evaluate: (input, deps) =>
      evaluateHook({
        input,
        oracles,
        now: deps.now,
        newId: deps.newId,
        budgetMs: deps.budgetMs,
        deadlineAt: deps.deadlineAt,
        ...(deps.onOracleSettled === undefined ? {} : { onOracleSettled: deps.onOracleSettled }),
        ...(deps.inputIsOwned === undefined ? {} : { inputIsOwned: deps.inputIsOwned }),
      }),
  };
}

function logOracle(logger: Logger, fields: Record<string, unknown>, report: OracleRunReport): void {
  const line = {
    ...fields,
    oracle: report.oracle,
    outcome: report.outcome,
    durationMs: report.durationMs,
    signals: report.signals,
    reason: report.message,
    error: report.error,
  };
  if (report.outcome === 'answered') logger.debug(line, 'oracle answered');
  else logger.warn(line, `oracle ${report.outcome === 'timeout' ? 'timed out' : report.outcome === 'threw' ? 'failed' : 'answered invalidly'}`);
}
