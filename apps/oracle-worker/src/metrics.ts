/**
 * The worker's Prometheus metrics: what happened to the hook jobs it took, how long they waited in
 * the queue and took to evaluate, how each oracle fared, and which configuration version it runs.
 * Served by the worker's own HTTP server (metrics-server.ts); docs/deploy.md lists every series.
 *
 * Each instance owns its {@link Registry} (never prom-client's global one), so tests can create
 * several.
 */
import type { OracleRunReport } from '@ahp/oracles';
import type { HookTrigger } from '@ahp/protocol';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * What became of a job, one per job attempt:
 * - `decided`: evaluated, and its decision was the first stored (so it was delivered);
 * - `duplicate`: evaluated, but a decision was already stored (a re-run, or the gateway's failure
 *   policy at the deadline); not delivered;
 * - `late_aid`: a `post-*` hook evaluated after the gateway answered it by failure policy, whose
 *   aid signals were pushed to the agent (see `HookProcessorOptions.lateAid`);
 * - `oracle_failure`: an oracle failed and the hook's failure policy decided (stored first or not);
 * - `skipped_past_deadline`: picked up after its deadline, not evaluated;
 * - `failed`: the attempt threw (Redis unavailable, unreadable job data); BullMQ retries it.
 */
export type JobOutcome = 'decided' | 'duplicate' | 'late_aid' | 'oracle_failure' | 'skipped_past_deadline' | 'failed';

/**
 * The processor's reporting points (see `HookProcessorOptions.metrics`). Calls are synchronous
 * and must not throw; the processor does not wait on them.
 */
export interface HookProcessorMetrics {
  /** A job was taken, `queuedMs` after the gateway enqueued it. */
  jobStarted(trigger: HookTrigger, queuedMs: number): void;
  /** A job ended without throwing; `durationMs` from its start to its decision being stored, when it was evaluated. */
  jobFinished(outcome: Exclude<JobOutcome, 'failed'>, trigger: HookTrigger, durationMs: number | undefined): void;
  /** One oracle finished for one hook (answered, timed out, threw or answered invalidly). */
  oracleSettled(report: OracleRunReport): void;
}

/** Options of {@link WorkerMetrics}. */
export interface WorkerMetricsOptions {
  /** The configuration version evaluating now; undefined for the built-in defaults (reported as 0). */
  configVersion: () => number | undefined;
  /**
   * Collect Node's process metrics (CPU, memory, event loop lag, GC) under the `ahp_worker_` prefix.
   * @defaultValue true
   */
  processMetrics?: boolean;
}

/**
 * Seconds, 1 ms to 10 s: evaluations and queue waits are milliseconds when healthy; the tail up
 * to the longest hook deadline must still land in a bucket.
 */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const OUTCOMES: readonly JobOutcome[] = ['decided', 'duplicate', 'late_aid', 'oracle_failure', 'skipped_past_deadline', 'failed'];

/** The worker's registry and metric definitions. */
export class WorkerMetrics {
  readonly registry = new Registry();
  /** What the processor reports to. */
  readonly processor: HookProcessorMetrics;
  private readonly jobs: Counter<'outcome'>;
  private readonly replayRecordFailures: Counter;

  constructor(options: WorkerMetricsOptions) {
    const registers = [this.registry];
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'ahp_worker_' });

    const jobs = new Counter({
      name: 'ahp_worker_jobs_total',
      help: 'Hook job attempts this worker finished, by outcome: decided, duplicate, late_aid, oracle_failure, skipped_past_deadline, failed (docs/deploy.md).',
      labelNames: ['outcome'],
      registers,
    });
    // Every outcome from the start, so rate() and alerts see a 0 rather than no series.
    for (const outcome of OUTCOMES) jobs.inc({ outcome }, 0);
    this.jobs = jobs;
    this.replayRecordFailures = new Counter({
      name: 'ahp_worker_replay_record_failures_total',
      help: 'Evaluated hooks this worker could not record in the replay log (their decisions were not affected).',
      registers,
    });
    const queueWait = new Histogram({
      name: 'ahp_hook_queue_wait_seconds',
      help: 'Time hook jobs waited in the queue: from the gateway enqueuing them to this worker starting them, by trigger.',
      labelNames: ['trigger'],
      buckets: [...DURATION_BUCKETS],
      registers,
    });
    const evaluation = new Histogram({
      name: 'ahp_worker_evaluation_duration_seconds',
      help: 'Time from a worker starting a hook job to its decision being stored (oracles and Redis), by trigger.',
      labelNames: ['trigger'],
      buckets: [...DURATION_BUCKETS],
      registers,
    });
    const oracleRuns = new Histogram({
      name: 'ahp_oracle_run_duration_seconds',
      help: 'Time each oracle took for one hook, by oracle and outcome (answered, timeout, threw, invalid).',
      labelNames: ['oracle', 'outcome'],
      buckets: [...DURATION_BUCKETS],
      registers,
    });
    new Gauge({
      name: 'ahp_worker_config_version',
      help: 'Hooks configuration version this worker evaluates with (0: none published, the built-in defaults).',
      registers,
      collect() {
        this.set(options.configVersion() ?? 0);
      },
    });

    this.processor = {
      jobStarted: (trigger, queuedMs) => queueWait.observe({ trigger }, Math.max(0, queuedMs) / 1000),
      jobFinished: (outcome, trigger, durationMs) => {
        jobs.inc({ outcome });
        if (durationMs !== undefined) evaluation.observe({ trigger }, Math.max(0, durationMs) / 1000);
      },
      oracleSettled: (report) => oracleRuns.observe({ oracle: report.oracle, outcome: report.outcome }, Math.max(0, report.durationMs) / 1000),
    };
  }

  /** A job attempt threw (BullMQ's `failed` event); it is retried or given up by BullMQ. */
  jobFailed(): void {
    this.jobs.inc({ outcome: 'failed' });
  }

  /** Recording a hook in the replay log failed (replay-recorder.ts). */
  replayRecordFailed(): void {
    this.replayRecordFailures.inc();
  }

  /** The exposition text and its content type, for `GET /metrics`. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
