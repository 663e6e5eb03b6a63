/**
 * The BullMQ queue of notifications: one job per request and channel, consumed by the oracle
 * workers. A queue of its own, not the hook queue: a slow or dead receiver retries here, with its
 * own small concurrency, and never takes a slot a hook evaluation needs.
 */
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { NotificationJobDataSchema, type NotificationJobData, type NotificationJobInput, type ParsedNotificationJobData } from '@ahp/protocol';
import { openBullConnection, type BullConnection } from './bull-connection.js';
import type { Logger } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** BullMQ queue name and job name of notifications. */
export const NOTIFICATION_QUEUE_NAME = 'notifications';
export const NOTIFICATION_JOB_NAME = 'notify';

/** Attempts of one delivery by default (the first and four retries). */
export const DEFAULT_NOTIFICATION_ATTEMPTS = 5;
/** First retry delay by default; each next one doubles: 2 s, 4 s, 8 s, 16 s. */
export const DEFAULT_NOTIFICATION_BACKOFF_MS = 2_000;

/** BullMQ's `prefix` for the notification queue: under a cluster it needs a hash tag of its own (BullMQ's scripts touch every key of a queue). */
export function notificationQueuePrefix(keys: StoreKeys, cluster: boolean): string {
  return cluster ? `${keys.prefix}:bull:{notifications}` : keys.bullPrefix;
}

export interface NotificationQueueOptions {
  redis: RedisClient;
  keys: StoreKeys;
  /** @defaultValue {@link DEFAULT_NOTIFICATION_ATTEMPTS} */
  attempts?: number;
  /** @defaultValue {@link DEFAULT_NOTIFICATION_BACKOFF_MS} */
  backoffMs?: number;
  logger?: Logger;
}

export interface NotificationQueue {
  readonly queue: Queue<NotificationJobData>;
  /**
   * Adds the job with `delivery_id` as its BullMQ job id: adding the same delivery again while
   * its job exists (also for 24 h after it completed) is a no-op, so routing a request twice
   * (a dispatcher that died before acknowledging) notifies once.
   * `delayMs`: a delayed job (an escalation tier), kept by BullMQ in Redis until it is due, so
   * it survives restarts of every worker.
   * @throws StoreInputError for data that does not parse.
   */
  enqueue(job: NotificationJobInput, options?: { delayMs?: number }): Promise<void>;
  /**
   * Queues a failed (dead) delivery again, its attempts counted from zero. `missing`: BullMQ
   * no longer holds the job (failed jobs are kept 7 days); `not_failed`: it is waiting, delayed,
   * running or completed, so there is nothing to replay.
   */
  replay(deliveryId: string): Promise<'queued' | 'missing' | 'not_failed'>;
  close(): Promise<void>;
}

export function createNotificationQueue(options: NotificationQueueOptions): NotificationQueue {
  const bull: BullConnection = openBullConnection(options.redis, options.logger);
  const queue = new Queue<NotificationJobData>(NOTIFICATION_QUEUE_NAME, {
    connection: bull.connection,
    prefix: notificationQueuePrefix(options.keys, isClusterClient(options.redis)),
    defaultJobOptions: {
      removeOnComplete: { age: 24 * 3600 },
      removeOnFail: { age: 7 * 24 * 3600 },
      attempts: options.attempts ?? DEFAULT_NOTIFICATION_ATTEMPTS,
      backoff: { type: 'exponential', delay: options.backoffMs ?? DEFAULT_NOTIFICATION_BACKOFF_MS },
    },
  });
  return {
    queue,
    async enqueue(job, enqueueOptions = {}) {
      const checked = NotificationJobDataSchema.safeParse(job);
      if (!checked.success) throw new StoreInputError(`invalid notification job: ${describeIssues(checked.error.issues)}`);
      const delay = enqueueOptions.delayMs;
      await queue.add(NOTIFICATION_JOB_NAME, checked.data, { jobId: checked.data.delivery_id, ...(delay !== undefined && delay > 0 ? { delay } : {}) });
    },
    async replay(deliveryId) {
      const job = await Job.fromId(queue, deliveryId);
      if (job === undefined) return 'missing';
      if ((await job.getState()) !== 'failed') return 'not_failed';
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return 'queued';
    },
    async close() {
      await queue.close();
      await bull.close();
    },
  };
}

/** Where a job stands when the processor runs it. */
export interface NotificationAttemptInfo {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** The job's attempts in all: the processor's last chance is `attempt === attempts`. */
  readonly attempts: number;
}

/** Delivers one notification. Throwing fails the attempt (BullMQ retries per the job's options); UnrecoverableError ends the job at once. */
export type NotificationProcessor = (job: ParsedNotificationJobData, info: NotificationAttemptInfo) => Promise<void>;

export interface NotificationWorkerOptions {
  redis: RedisClient;
  keys: StoreKeys;
  processor: NotificationProcessor;
  logger: Logger;
  /**
   * Deliveries at once per worker process. Small: it is waiting on receivers, and the hook
   * worker's concurrency is what decisions need.
   * @defaultValue `4`
   */
  concurrency?: number;
}

export interface NotificationWorker {
  readonly worker: Worker<NotificationJobData>;
  close(): Promise<void>;
}

/** A BullMQ worker on the notification queue. Job data that does not parse fails without retry. */
export function createNotificationWorker(options: NotificationWorkerOptions): NotificationWorker {
  const { logger, processor } = options;
  const bull = openBullConnection(options.redis, logger);
  const worker = new Worker<NotificationJobData>(
    NOTIFICATION_QUEUE_NAME,
    async (job: Job<unknown>) => {
      const checked = NotificationJobDataSchema.safeParse(job.data);
      if (!checked.success) {
        const reason = describeIssues(checked.error.issues);
        logger.error({ jobId: job.id, error: reason }, 'notification job data does not parse; failing the job without retry');
        throw new UnrecoverableError(`invalid notification job data: ${reason}`);
      }
      await processor(checked.data, { attempt: job.attemptsMade + 1, attempts: Math.max(1, job.opts.attempts ?? 1) });
    },
    {
      connection: bull.connection,
      prefix: notificationQueuePrefix(options.keys, isClusterClient(options.redis)),
      concurrency: options.concurrency ?? 4,
    },
  );
  worker.on('error', (error) => logger.error({ error: error.message }, 'notification worker error'));
  let closing: Promise<void> | undefined;
  return {
    worker,
    close() {
      closing ??= worker.close().then(() => bull.close());
      return closing;
    },
  };
}
