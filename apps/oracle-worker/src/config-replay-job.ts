/**
 * The worker's half of a configuration replay (docs/hooks.md, "Replay a candidate configuration"):
 * compile the candidate with this worker's plugins, read the window from the replay log and
 * evaluate it with `replayConfig` of `@ahp/oracles` — the same compiled evaluation the hook jobs
 * run, with escalation counters simulated in the replay's own memory.
 *
 * A replay shares the process with hook evaluations: it yields to the event loop every few
 * hooks, so the hooks' I/O is never held up for longer than a few evaluations, and its queue's
 * concurrency (`AHP_REPLAY_CONCURRENCY`, default 1) keeps it from taking more than its share.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { formatConfigIssues, replayConfig, validateHooksConfig, type Oracle, type ReplayInput } from '@ahp/oracles';
import type { ConfigReplayJobData } from '@ahp/protocol';
import { ConfigReplayCancelled, type ConfigReplayProcessor, type Logger, type ReplayLog } from '@ahp/store';

/** Options of {@link createConfigReplayProcessor}. */
export interface ConfigReplayProcessorOptions {
  readonly log: Pick<ReplayLog, 'read'>;
  /** The plugins the worker loads, so the candidate resolves oracle names as it will when published. */
  readonly plugins: readonly Oracle[];
  /** Time each oracle gets (the worker's `AHP_ORACLE_BUDGET_MS`). */
  readonly budgetMs: number;
  readonly logger: Logger;
  /** Hooks evaluated between two yields to the event loop. @defaultValue `20` */
  readonly yieldEvery?: number;
  /** Hooks read between two progress reports and cancel checks. @defaultValue `200` */
  readonly checkpointEvery?: number;
}

/** A candidate that does not compile on this worker: the job fails with the issues. */
export class CandidateConfigError extends Error {
  override readonly name = 'CandidateConfigError';
}

export function createConfigReplayProcessor(options: ConfigReplayProcessorOptions): ConfigReplayProcessor {
  const { logger } = options;
  const yieldEvery = options.yieldEvery ?? 20;

  async function* paced(job: ConfigReplayJobData): AsyncGenerator<ReplayInput> {
    let n = 0;
    for await (const item of options.log.read({
      sinceMs: job.since_ms,
      untilMs: job.until_ms,
      ...(job.agent === undefined ? {} : { agentId: job.agent }),
      ...(job.trigger === undefined ? {} : { trigger: job.trigger }),
    })) {
      yield item.kind === 'record' ? item : { kind: 'unreadable' };
      n += 1;
      if (n % yieldEvery === 0) await yieldToEventLoop();
    }
  }

  return async (job, context) => {
    const fields = { jobId: job.replay_id, operator: job.requested_by };
    const checked = validateHooksConfig(job.source, { plugins: options.plugins });
    if (!checked.ok) {
      logger.info({ ...fields, issues: checked.issues.length }, 'replay candidate does not compile on this worker');
      throw new CandidateConfigError(`the candidate configuration does not compile: ${formatConfigIssues(checked.issues.slice(0, 20), 'candidate')}`);
    }
    const started = Date.now();
    logger.info({ ...fields, since: job.since_ms, until: job.until_ms, agentId: job.agent, trigger: job.trigger, limit: job.limit }, 'replay started');
    const report = await replayConfig({
      compiled: checked.compiled,
      records: paced(job),
      sinceMs: job.since_ms,
      untilMs: job.until_ms,
      limit: job.limit,
      budgetMs: options.budgetMs,
      checkpointEvery: options.checkpointEvery ?? 200,
      checkpoint: async (progress) => {
        if (await context.cancelled()) throw new ConfigReplayCancelled();
        await context.progress(progress);
      },
    });
    logger.info({ ...fields, total: report.total, changed: report.changed, durationMs: Date.now() - started }, 'replay finished');
    return report;
  };
}
