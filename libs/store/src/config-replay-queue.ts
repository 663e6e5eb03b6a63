/**
 * The BullMQ queue of configuration replays: one job per `POST /v1/operator/config/replay`,
 * consumed by the oracle workers with a small concurrency of its own. A queue apart from the hook
 * queue, so a replay of 100 000 hooks never takes a slot a live hook needs.
 *
 * Guarantees:
 * - The report is the job's return value, kept in Redis 24 h after the job ends (BullMQ's
 *   `returnvalue`), so a gateway that restarts, or another gateway, answers `GET …/:id` alike.
 * - Cancelling is a flag in Redis (`replayCancel`), read by the job between pages: any gateway
 *   can cancel a job running on any worker. A job still waiting is removed at once, and the flag
 *   keeps its status (`cancelled`) for 24 h.
 * - A job is attempted once: a replay that failed (a candidate that does not compile on the
 *   worker's plugins, Redis gone) says why, and running it again is the operator's choice.
 */
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import {
  ConfigReplayJobDataSchema,
  ConfigReplayProgressSchema,
  ConfigReplayReportSchema,
  ConfigReplayStatusSchema,
  type ConfigReplayJobData,
  type ConfigReplayProgress,
  type ConfigReplayReport,
  type ConfigReplayStatus,
} from '@ahp/protocol';
import { openBullConnection } from './bull-connection.js';
import type { Logger } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** BullMQ queue name and job name of replays. */
export const CONFIG_REPLAY_QUEUE_NAME = 'config-replay';
export const CONFIG_REPLAY_JOB_NAME = 'replay';
/** How long a finished replay (its report, or why it failed) and a cancel flag are kept. */
export const CONFIG_REPLAY_KEEP_MS = 24 * 3_600_000;
/** The failure reason of a job stopped by its cancel flag. */
export const CONFIG_REPLAY_CANCELLED = 'cancelled by an operator';

/** BullMQ's `prefix` for the replay queue: a hash tag of its own under a cluster (BullMQ's scripts touch every key of a queue). */
export function configReplayQueuePrefix(keys: StoreKeys, cluster: boolean): string {
  return cluster ? `${keys.prefix}:bull:{${CONFIG_REPLAY_QUEUE_NAME}}` : keys.bullPrefix;
}

export interface ConfigReplayQueueOptions {
  redis: RedisClient;
  keys: StoreKeys;
  logger?: Logger;
}

export interface ConfigReplayQueue {
  /**
   * Adds the job with `replay_id` as its job id (adding it again is a no-op).
   * @throws StoreInputError for data that does not parse.
   */
  submit(job: ConfigReplayJobData): Promise<ConfigReplayStatus>;
  /** Where the replay stands; `null` for an unknown id (never submitted, or finished more than 24 h ago). */
  status(replayId: string): Promise<ConfigReplayStatus | null>;
  /** Asks the replay to stop; the status after asking, `null` for an unknown id. A finished replay is left as it is. */
  cancel(replayId: string): Promise<ConfigReplayStatus | null>;
  /** Replays waiting or running, in the whole deployment. */
  unfinished(): Promise<number>;
  close(): Promise<void>;
}

const NO_PROGRESS: ConfigReplayProgress = { read: 0, fraction: 0 };

function progressOf(value: unknown): ConfigReplayProgress {
  const parsed = ConfigReplayProgressSchema.safeParse(value);
  return parsed.success ? parsed.data : NO_PROGRESS;
}

/**
 * A BullMQ job as a status (its data, state, progress and report are parsed; whatever does not
 * parse is reported as a failure). `state` must have been read before `job`: a job read first
 * and found finished a moment later would lack the report (or the reason) its state promises.
 */
function statusOf(job: Job<unknown>, state: Awaited<ReturnType<Job['getState']>>): ConfigReplayStatus | null {
  const data = ConfigReplayJobDataSchema.safeParse(job.data);
  if (!data.success) return null;
  const base = { id: data.data.replay_id, requested_by: data.data.requested_by, requested_at: data.data.requested_at, progress: progressOf(job.progress) };
  if (state === 'completed') {
    const report = ConfigReplayReportSchema.safeParse(job.returnvalue);
    if (!report.success) return { ...base, state: 'failed', error: `the stored report does not parse: ${describeIssues(report.error.issues)}` };
    return { ...base, state: 'completed', progress: { read: base.progress.read, fraction: 1 }, report: report.data };
  }
  if (state === 'failed') {
    const reason = job.failedReason ?? 'unknown';
    return reason === CONFIG_REPLAY_CANCELLED ? { ...base, state: 'cancelled' } : { ...base, state: 'failed', error: reason.slice(0, 4096) };
  }
  if (state === 'active') return { ...base, state: 'active' };
  return { ...base, state: 'waiting' };
}

export function createConfigReplayQueue(options: ConfigReplayQueueOptions): ConfigReplayQueue {
  const { redis, keys } = options;
  const bull = openBullConnection(redis, options.logger);
  const queue = new Queue<ConfigReplayJobData>(CONFIG_REPLAY_QUEUE_NAME, {
    connection: bull.connection,
    prefix: configReplayQueuePrefix(keys, isClusterClient(redis)),
    defaultJobOptions: {
      removeOnComplete: { age: CONFIG_REPLAY_KEEP_MS / 1000 },
      removeOnFail: { age: CONFIG_REPLAY_KEEP_MS / 1000 },
      attempts: 1,
    },
  });

  /** The status kept in the cancel flag of a job removed while waiting. */
  async function cancelledSnapshot(replayId: string): Promise<ConfigReplayStatus | null> {
    const raw = await redis.get(keys.replayCancel(replayId));
    if (raw === null || raw === '1') return null;
    try {
      const parsed = ConfigReplayStatusSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** The job and its state, the state read first (see {@link statusOf}); undefined when there is no such job. */
  async function read(replayId: string): Promise<{ job: Job<unknown>; status: ConfigReplayStatus | null } | undefined> {
    const state = await queue.getJobState(replayId);
    const job = await queue.getJob(replayId);
    if (job === undefined) return undefined;
    return { job, status: statusOf(job, state) };
  }

  async function status(replayId: string): Promise<ConfigReplayStatus | null> {
    const found = await read(replayId);
    return found === undefined ? cancelledSnapshot(replayId) : found.status;
  }

  return {
    async submit(job) {
      const checked = ConfigReplayJobDataSchema.safeParse(job);
      if (!checked.success) throw new StoreInputError(`invalid replay job: ${describeIssues(checked.error.issues)}`);
      await queue.add(CONFIG_REPLAY_JOB_NAME, checked.data, { jobId: checked.data.replay_id });
      return (await status(checked.data.replay_id)) ?? { id: checked.data.replay_id, state: 'waiting', progress: NO_PROGRESS, requested_by: checked.data.requested_by, requested_at: checked.data.requested_at };
    },
    status,
    async cancel(replayId) {
      const found = await read(replayId);
      if (found === undefined) return cancelledSnapshot(replayId);
      const { job, status: current } = found;
      if (current === null || current.state === 'completed' || current.state === 'failed' || current.state === 'cancelled') return current;
      const flag = keys.replayCancel(replayId);
      if (current.state === 'waiting') {
        const cancelled: ConfigReplayStatus = { ...current, state: 'cancelled' };
        await redis.set(flag, JSON.stringify(cancelled), { PX: CONFIG_REPLAY_KEEP_MS });
        try {
          await job.remove();
          return cancelled;
        } catch {
          // A worker took it meanwhile (it is locked): it reads the flag at its next page.
        }
      } else {
        await redis.set(flag, '1', { PX: CONFIG_REPLAY_KEEP_MS });
      }
      return (await status(replayId)) ?? current;
    },
    async unfinished() {
      const counts = await queue.getJobCounts('waiting', 'active', 'prioritized', 'delayed');
      return Object.values(counts).reduce((sum, n) => sum + n, 0);
    },
    async close() {
      await queue.close();
      await bull.close();
    },
  };
}

/** What a replay job's processor gets besides its data. */
export interface ConfigReplayJobContext {
  /** Reports progress (`job.updateProgress`). */
  progress(progress: ConfigReplayProgress): Promise<void>;
  /** Whether an operator asked this replay to stop (reads the flag in Redis). */
  cancelled(): Promise<boolean>;
}

/** Runs one replay. Throw {@link ConfigReplayCancelled} to end it as cancelled. */
export type ConfigReplayProcessor = (job: ConfigReplayJobData, context: ConfigReplayJobContext) => Promise<ConfigReplayReport>;

/** Thrown by a processor that saw its cancel flag. */
export class ConfigReplayCancelled extends Error {
  override readonly name = 'ConfigReplayCancelled';
  constructor() {
    super(CONFIG_REPLAY_CANCELLED);
  }
}

export interface ConfigReplayWorkerOptions {
  redis: RedisClient;
  keys: StoreKeys;
  processor: ConfigReplayProcessor;
  logger: Logger;
  /**
   * Replays at once per worker process. A replay is CPU work on the worker's one thread, beside
   * hook evaluations: keep it at 1 unless the workers have cores to spare.
   * @defaultValue `1`
   */
  concurrency?: number;
}

export interface ConfigReplayWorker {
  readonly worker: Worker<ConfigReplayJobData>;
  close(): Promise<void>;
}

/** A BullMQ worker on the replay queue. Data that does not parse, and a cancelled replay, fail without retry. */
export function createConfigReplayWorker(options: ConfigReplayWorkerOptions): ConfigReplayWorker {
  const { redis, keys, logger, processor } = options;
  const bull = openBullConnection(redis, logger);
  const worker = new Worker<ConfigReplayJobData>(
    CONFIG_REPLAY_QUEUE_NAME,
    async (job: Job<unknown>) => {
      const checked = ConfigReplayJobDataSchema.safeParse(job.data);
      if (!checked.success) {
        const reason = describeIssues(checked.error.issues);
        logger.error({ jobId: job.id, error: reason }, 'replay job data does not parse; failing the job');
        throw new UnrecoverableError(`invalid replay job data: ${reason}`);
      }
      const flag = keys.replayCancel(checked.data.replay_id);
      try {
        return await processor(checked.data, {
          progress: (progress) => job.updateProgress(progress),
          cancelled: async () => (await redis.exists(flag)) === 1,
        });
      } catch (error) {
        if (error instanceof ConfigReplayCancelled) throw new UnrecoverableError(CONFIG_REPLAY_CANCELLED);
        throw error;
      }
    },
    {
      connection: bull.connection,
      prefix: configReplayQueuePrefix(keys, isClusterClient(redis)),
      concurrency: options.concurrency ?? 1,
    },
  );
  worker.on('error', (error) => logger.error({ error: error.message }, 'replay worker error'));
  let closing: Promise<void> | undefined;
  return {
    worker,
    close() {
      closing ??= worker.close().then(() => bull.close());
      return closing;
    },
  };
}
