/**
 * The BullMQ queue of hook evaluations, over the node-redis client.
 */
import { Queue } from 'bullmq';
import { HookJobDataSchema, redactSecrets, type HookJobData } from '@ahp/protocol';
import type { EnqueueOptions, HookQueue } from './contracts.js';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import type { RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** BullMQ job name of a hook evaluation. */
export const HOOK_JOB_NAME = 'evaluate';

/** Options of {@link createHookQueue}. */
export interface HookQueueOptions {
  /** A connected client. The queue shares it (BullMQ does not close a client it was given); close it after the queue. */
  redis: RedisClient;
  keys: StoreKeys;
  /**
   * Attempts per job. A retry re-runs the whole evaluation, which is safe: `decide` is first
   * writer wins.
   * @defaultValue `3`
   */
  attempts?: number;
  /**
   * First retry delay; each next one doubles (BullMQ's exponential backoff). Short, because the
   * agent waits on the hook's deadline.
   * @defaultValue `200`
   */
  backoffMs?: number;
  /**
   * How long failed jobs stay inspectable.
   * @defaultValue `3600` (1 h)
   */
  failedJobAgeSeconds?: number;
}

/** The HookQueue plus the BullMQ queue, for what the interface does not cover (metrics, admin). */
export interface RedisHookQueue extends HookQueue {
  readonly queue: Queue<HookJobData>;
}

/** BullMQ's lowest job priority (its limit is 2^21, exclusive). */
export const MAX_JOB_PRIORITY = 2 ** 21 - 1;

/**
 * Creates the HookQueue. See {@link HookQueue} for the contract.
 *
 * `enqueue` validates the data with HookJobDataSchema (StoreInputError otherwise) and adds a job
 * whose id is the hook id: while a job with that id exists (waiting, delayed, active, failed),
 * adding it again is a no-op. Completed jobs are removed at once (the hook hash holds the
 * decision), so a hook re-sent after its job completed is evaluated again and its decision is
 * the first one anyway.
 *
 * Job data is readable by anyone who can read the queue, and failed jobs stay for an hour: the
 * context's secret-named fields (`authorization`, `token`, `*_token`, `password`, `secret`,
 * `api_key`, … — `redactSecrets` of `@ahp/protocol`) are replaced by `"[redacted]"` before the
 * job is added. Text is left as it is, so a rule still sees the command line the agent will run.
 */
export function createHookQueue(options: HookQueueOptions): RedisHookQueue {
  const { keys } = options;
  const queue = new Queue<HookJobData>(keys.queueName, {
    connection: options.redis,
    prefix: keys.bullPrefix,
    defaultJobOptions: {
      removeOnComplete: true,
      removeOnFail: { age: options.failedJobAgeSeconds ?? 3600 },
      attempts: options.attempts ?? 3,
      backoff: { type: 'exponential', delay: options.backoffMs ?? 200 },
    },
  });
  return {
    queue,
    async enqueue(job: HookJobData, options: EnqueueOptions = {}): Promise<void> {
      const checked = HookJobDataSchema.safeParse(job);
      if (!checked.success) throw new StoreInputError(`invalid hook job: ${describeIssues(checked.error.issues)}`);
      const { priority } = options;
      if (priority !== undefined && !(Number.isInteger(priority) && priority >= 1 && priority <= MAX_JOB_PRIORITY)) {
        throw new StoreInputError(`invalid job priority ${String(priority)}: a whole number from 1 to ${MAX_JOB_PRIORITY}`);
      }
      const data: HookJobData = { ...checked.data, context: redactSecrets(checked.data.context, { credentialsInText: false }) };
      await queue.add(HOOK_JOB_NAME, data, { jobId: data.hook_id, ...(priority === undefined ? {} : { priority }) });
    },
    async counts() {
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
      return {
        waiting: (counts['waiting'] ?? 0) + (counts['prioritized'] ?? 0),
        active: counts['active'] ?? 0,
        delayed: counts['delayed'] ?? 0,
        failed: counts['failed'] ?? 0,
      };
    },
    async close() {
      await queue.close();
    },
  };
}
