/**
 * The BullMQ worker that runs hook evaluations.
 */
import { UnrecoverableError, Worker, type Job, type Telemetry } from 'bullmq';
import { HookJobDataSchema, type HookJobData } from '@ahp/protocol';
import { openBullConnection } from './bull-connection.js';
import type { Logger } from '@ahp/protocol';
import { hookQueueShards } from './hook-queue-shards.js';
import type { StoreKeys } from './keys.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/**
 * Evaluates one hook job. Throwing fails the attempt; BullMQ retries it per the queue's job options.
 * `meta.enqueuedAt` is when the job was added (BullMQ's job timestamp, the gateway's clock).
 */
export type HookProcessor = (job: HookJobData, meta: { jobId: string; attemptsMade: number; enqueuedAt?: number }) => Promise<void>;

/**
 * Options of {@link createHookWorker}.
 *
 * Lock and stall settings decide how fast a job of a killed worker runs again: its lock expires
 * after `lockDurationMs`, and the next stalled-jobs check (every `stalledIntervalMs`, on any
 * worker) moves it back to waiting. With BullMQ's defaults (30 s / 30 s) that is up to a minute,
 * longer than a hook's deadline; ours re-run it within about 15 s. A shorter lock costs more lock
 * renewals (every `lockDurationMs / 2` per active job) and risks a lock lost while an event loop
 * is blocked longer than the lock.
 */
export interface HookWorkerOptions {
  /** A connected client. The worker does not use it directly: BullMQ opens two duplicates (one blocking) and closes them on `close()` (under a cluster, from an ioredis connection opened from the same seeds). */
  redis: RedisClient;
  keys: StoreKeys;
  /**
   * The deployment's shard count K (resolveHookQueueShardCount); the worker consumes every shard
   * unless `consumeShards` names a subset.
   * @defaultValue `1`
   */
  shards?: number;
  /** Shard indexes (0…K-1) this worker consumes; every shard when absent. Every shard must be consumed by some worker. */
  consumeShards?: readonly number[];
  processor: HookProcessor;
  logger: Logger;
  /**
   * Jobs run at once by this worker, over all its shards (each shard's BullMQ worker gets an even
   * share, rounded up). Evaluation is mostly waiting on I/O.
   * @defaultValue `8`
   */
  concurrency?: number;
  /**
   * How long a job's lock lasts without renewal. With `stalledIntervalMs` it bounds how long a
   * dead worker's job waits before another worker takes it (measured ~4.5 s at 4000/2000; see
   * docs/reliability.md) — that must fit inside the hook deadline, or the failure policy answers.
   * @defaultValue `4000`
   */
  lockDurationMs?: number;
  /**
   * How often this worker looks for jobs whose lock expired.
   * @defaultValue `2000`
   */
  stalledIntervalMs?: number;
  /**
   * How often a job may stall (its worker died) before it fails for good. Evaluation is
   * idempotent (first writer wins), so re-running it is harmless.
   * @defaultValue `2`
   */
  maxStalledCount?: number;
  /**
   * Start fetching jobs at once. When false, call `worker.run()`.
   * @defaultValue `true`
   */
  autorun?: boolean;
  /**
   * BullMQ's telemetry (bullmq-otel, from `@ahp/telemetry`): each job runs inside a `process`
   * span continuing the trace its `add` started, so the processor's spans join it.
   * @defaultValue none (tracing off)
   */
  telemetry?: Telemetry;
}

/** A running hook worker. */
export interface HookWorker {
  /** Waits for active jobs to finish, then closes the worker's connections. Idempotent. */
  close(): Promise<void>;
  /** The BullMQ worker of the first consumed shard (the only one with K = 1). */
  readonly worker: Worker<HookJobData>;
  /** One BullMQ worker per consumed shard. */
  readonly workers: readonly Worker<HookJobData>[];
}

/**
 * Creates a BullMQ worker on the hook queue.
 *
 * Job data is parsed with HookJobDataSchema before the processor sees it. Data that does not
 * parse fails the job with BullMQ's UnrecoverableError (no retries: it would never parse) and a
 * log line. Worker errors (lost connections) and failed attempts are logged, never thrown.
 */
export function createHookWorker(options: HookWorkerOptions): HookWorker {
  const { keys, logger, processor } = options;

  async function processJob(job: Job<unknown>): Promise<void> {
    const jobId = job.id ?? '';
    const checked = HookJobDataSchema.safeParse(job.data);
    if (!checked.success) {
      const reason = describeIssues(checked.error.issues);
      logger.error({ jobId, error: reason }, 'hook job data does not parse; failing the job without retry');
      throw new UnrecoverableError(`invalid hook job data: ${reason}`);
    }
    await processor(checked.data, { jobId, attemptsMade: job.attemptsMade, enqueuedAt: job.timestamp });
  }

  const shards = hookQueueShards(keys, options.shards ?? 1, isClusterClient(options.redis));
  const consumed = options.consumeShards === undefined ? shards : shards.filter((shard) => options.consumeShards?.includes(shard.index));
  if (consumed.length === 0) throw new RangeError(`consumeShards ${JSON.stringify(options.consumeShards)} names none of the ${shards.length} shard(s)`);
  const bull = openBullConnection(options.redis, logger);
  const concurrency = Math.max(1, Math.ceil((options.concurrency ?? 8) / consumed.length));
  const workers = consumed.map((shard) => {
    const worker = new Worker<HookJobData>(shard.name, processJob, {
      connection: bull.connection,
      prefix: shard.prefix,
      concurrency,
      lockDuration: options.lockDurationMs ?? 4_000,
      stalledInterval: options.stalledIntervalMs ?? 2_000,
      maxStalledCount: options.maxStalledCount ?? 2,
      autorun: options.autorun ?? true,
      ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    });
    worker.on('error', (error) => {
      logger.error({ error: error.message, shard: shard.index }, 'hook worker error');
    });
    worker.on('failed', (job, error) => {
      const data = job?.data as Partial<HookJobData> | undefined;
      logger.warn(
        {
          jobId: job?.id,
          correlationId: data?.hook_id,
          agentId: data?.agent?.id,
          attemptsMade: job?.attemptsMade,
          shard: shard.index,
          error: error.message,
        },
        'hook job attempt failed',
      );
    });
    return worker;
  });

  let closing: Promise<void> | undefined;
  return {
    worker: workers[0] as Worker<HookJobData>,
    workers,
    close() {
      closing ??= Promise.all(workers.map((worker) => worker.close())).then(() => bull.close());
      return closing;
    },
  };
}
