/**
 * The worker's half of a configuration replay (docs/hooks.md, "Replay a candidate configuration"):
 * compile the candidate with this worker's plugins, read the window from the replay log and
 * evaluate it with `replayConfig` of `@ahp/oracles` — the same compiled evaluation the hook jobs
 * run, with escalation counters simulated in the replay's own memory.
 *
 * A replay shares the process with hook evaluations, and hooks come first:
 *
 * - it runs in slices of at most `sliceMs` (1 ms) or `yieldEvery` hooks, and yields to the event
 *   loop between two slices, so a hook's Redis reply waits at most one slice;
 * - between two slices, while this worker has hooks to decide ({@link createHookActivity}: a hook
 *   job running, or one that ended less than 20 ms ago, as the next of a stream of hooks is
 *   about to arrive), it waits — up to `maxDeferMs` (50 ms) per slice, so a replay still finishes
 *   under steady hook traffic, more slowly. Waiting leaves the CPU to the hooks' gateway and Redis
 *   too, which a replay in a slice would take from them on a machine with few cores.
 *
 * The bench's `replay` phase measured why (BENCHMARKS.md, "Replays and the hot path"): yielding
 * every 20 hooks alone, a replay on every worker made decisions one at a time ~9× slower at p50;
 * with slices and giving way, ~1.2×.
 * Its queue's concurrency (`AHP_REPLAY_CONCURRENCY`, default 1) keeps it from taking more than
 * its share of the worker's replays.
 */
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';
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
  /** Most hooks evaluated between two yields to the event loop. @defaultValue `20` */
  readonly yieldEvery?: number;
  /** Longest slice of replay work between two yields, ms. @defaultValue `1` */
  readonly sliceMs?: number;
  /** Whether this worker is deciding hooks now: the replay waits between slices while it is. */
  readonly hooksBusy?: () => boolean;
  /** Longest wait for hook jobs between two slices, ms (a replay must progress under steady traffic). @defaultValue `50` */
  readonly maxDeferMs?: number;
  /** The clock slices are timed on. @defaultValue `performance.now` */
  readonly now?: () => number;
  /** Hooks read between two progress reports and cancel checks. @defaultValue `200` */
  readonly checkpointEvery?: number;
}

/** Whether a worker is deciding hooks, for replays to give way to (see {@link ConfigReplayProcessorOptions.hooksBusy}). */
export interface HookActivity {
  /** Runs a hook job, counted. */
  run<T>(job: () => Promise<T>): Promise<T>;
  /** A hook job runs, or one ended less than `quietMs` ago. */
  busy(): boolean;
}

/**
 * {@link HookActivity} with a quiet time after each hook job (default 20 ms: a worker that decides
 * hooks one after another sees the next within a few ms, and a replay slice between two of them
 * would meet it). 5 ms let decisions one at a time run ×1.8 slower at p50 beside a replay on every
 * worker in the bench, 20 ms ×1.2.
 */
export function createHookActivity(options: { quietMs?: number; now?: () => number } = {}): HookActivity {
  const quietMs = options.quietMs ?? 20;
  const now = options.now ?? (() => performance.now());
  let running = 0;
  let lastEnded = -Infinity;
  return {
    async run(job) {
      running += 1;
      try {
        return await job();
      } finally {
        running -= 1;
        lastEnded = now();
      }
    },
    busy: () => running > 0 || now() - lastEnded < quietMs,
  };
}

/** A candidate that does not compile on this worker: the job fails with the issues. */
export class CandidateConfigError extends Error {
  override readonly name = 'CandidateConfigError';
}

export function createConfigReplayProcessor(options: ConfigReplayProcessorOptions): ConfigReplayProcessor {
  const { logger } = options;
  const yieldEvery = options.yieldEvery ?? 20;
  const sliceMs = options.sliceMs ?? 1;
  const maxDeferMs = options.maxDeferMs ?? 50;
  const hooksBusy = options.hooksBusy ?? (() => false);
  const now = options.now ?? (() => performance.now());

  /** Between two slices: the event loop's pending I/O first, then any hook job running here. */
  async function pause(): Promise<void> {
    await yieldToEventLoop();
    const until = now() + maxDeferMs;
    while (hooksBusy() && now() < until) await sleep(1);
  }

  async function* paced(job: ConfigReplayJobData): AsyncGenerator<ReplayInput> {
    let inSlice = 0;
    let sliceStart = now();
    for await (const item of options.log.read({
      sinceMs: job.since_ms,
      untilMs: job.until_ms,
      ...(job.agent === undefined ? {} : { agentId: job.agent }),
      ...(job.trigger === undefined ? {} : { trigger: job.trigger }),
    })) {
      yield item.kind === 'record' ? item : { kind: 'unreadable' };
      inSlice += 1;
      if (inSlice >= yieldEvery || now() - sliceStart >= sliceMs) {
        await pause();
        inSlice = 0;
        sliceStart = now();
      }
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
