/**
 * The BullMQ queue of hook evaluations, split into K shards (hook-queue-shards.ts): one queue
 * under one Redis, K queues under their own hash tags under a cluster.
 */
import { Queue, type Telemetry } from 'bullmq';
import { HookJobDataSchema, redactSecrets, type HookJobData } from '@ahp/protocol';
import { openBullConnection, type BullConnection } from './bull-connection.js';
import type { Logger } from '@ahp/protocol';
import type { EnqueueOptions, HookQueue } from './contracts.js';
import { StoreInputError } from './errors.js';
import { hookQueueShards, shardIndexOf, type HookQueueShard } from './hook-queue-shards.js';
import type { StoreKeys } from './keys.js';
import { loadRedactionKey, redactionMarkerFor } from './redaction-key.js';
import { isClusterClient, RedisTopologyError, type RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** BullMQ job name of a hook evaluation. */
export const HOOK_JOB_NAME = 'evaluate';

/** Options of {@link createHookQueue}. */
export interface HookQueueOptions {
  /** A connected client. The queue shares it under one Redis (BullMQ does not close a client it was given; close it after the queue); under a cluster it opens its own ioredis connection from the same seeds. */
  redis: RedisClient;
  keys: StoreKeys;
  /**
   * Number of shards K, as {@link resolveHookQueueShardCount} settled it: every gateway and
   * worker of a deployment must use the same K.
   * @defaultValue `1`
   */
  shards?: number;
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
  logger?: Logger;
  /**
   * BullMQ's telemetry (bullmq-otel, from `@ahp/telemetry`): an `add` span per job, whose W3C
   * trace context travels in the job's options to the worker. @defaultValue none (tracing off)
   */
  telemetry?: Telemetry;
  /**
   * The key of the redaction markers (`AHP_REDACTION_KEY`, see redaction-key.ts). Unset: the
   * deployment's key stored in Redis, read (or created) once, at the first enqueue.
   */
  redactionKey?: string;
}

/** The HookQueue plus the BullMQ queues, for what the interface does not cover (metrics, admin, tests). */
export interface RedisHookQueue extends HookQueue {
  /** The queue of shard 0 (the only one with K = 1). */
  readonly queue: Queue<HookJobData>;
  /** Every shard's queue, by shard index. */
  readonly queues: readonly Queue<HookJobData>[];
  readonly shards: readonly HookQueueShard[];
  /** The queue a hook id goes to. */
  queueFor(hookId: string): Queue<HookJobData>;
}

/** BullMQ's lowest job priority (its limit is 2^21, exclusive). */
export const MAX_JOB_PRIORITY = 2 ** 21 - 1;

/**
 * The shard count K of the deployment: the first process to start stores its `configured` value
 * (or the default: the number of masters under a cluster, 1 under one Redis) with SET NX, and
 * every process uses the stored value from then on, so gateways and workers cannot disagree on
 * where hooks are. A `configured` value different from the stored one is refused (changing K moves
 * every hook to another queue: drain the queue first, then delete the key).
 *
 * @throws RedisTopologyError when `configured` contradicts the stored count, or the stored value is not a count.
 */
export async function resolveHookQueueShardCount(redis: RedisClient, keys: StoreKeys, configured?: number): Promise<number> {
  const fallback = isClusterClient(redis) ? Math.max(1, redis.masters.length) : 1;
  const wanted = configured ?? fallback;
  hookQueueShards(keys, wanted, false); // validates the range
  await redis.set(keys.hookQueueShardCount, String(wanted), { condition: 'NX' });
  const stored = await redis.get(keys.hookQueueShardCount);
  const count = Number(stored);
  if (!Number.isInteger(count) || count < 1) throw new RedisTopologyError(`${keys.hookQueueShardCount} holds ${JSON.stringify(stored)}, not a shard count; delete it`);
  if (configured !== undefined && configured !== count) {
    throw new RedisTopologyError(
      `AHP_HOOK_QUEUE_SHARDS=${configured}, but this deployment's hook queue has ${count} shard(s), fixed when it first started (${keys.hookQueueShardCount}). ` +
        `To change it: stop the gateways, let the workers drain the queue, delete that key, then restart with the new value.`,
    );
  }
  return count;
}

/**
 * Creates the HookQueue. See {@link HookQueue} for the contract.
 *
 * `enqueue` validates the data with HookJobDataSchema (StoreInputError otherwise) and adds a job
 * whose id is the hook id to the hook id's shard: while a job with that id exists (waiting,
 * delayed, active, failed), adding it again is a no-op — a re-sent hook goes to the same shard, so
 * this holds with any K. Completed jobs are removed at once (the hook hash holds the decision), so
 * a hook re-sent after its job completed is evaluated again and its decision is the first one anyway.
 *
 * Job data is readable by anyone who can read the queue, and failed jobs stay for an hour: the
 * context's secret-named fields (`authorization`, `token`, `*_token`, `password`, `secret`,
 * `api_key`, … — `redactSecrets` of `@ahp/protocol`) are replaced before the job is added by a
 * marker carrying a keyed hash of their value, `"[redacted:<hex>]"` (redaction-key.ts): the
 * secret is not stored, yet two calls that differ only in a secret differ in the queued context,
 * and so in their approval digests and grants. Text is left as it is, so a rule still sees the
 * command line the agent will run.
 */
export function createHookQueue(options: HookQueueOptions): RedisHookQueue {
  const { keys } = options;
  const shards = hookQueueShards(keys, options.shards ?? 1, isClusterClient(options.redis));
  const bull: BullConnection = openBullConnection(options.redis, options.logger);
  const queues = shards.map(
    (shard) =>
      new Queue<HookJobData>(shard.name, {
        connection: bull.connection,
        prefix: shard.prefix,
        ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
        defaultJobOptions: {
          removeOnComplete: true,
          removeOnFail: { age: options.failedJobAgeSeconds ?? 3600 },
          attempts: options.attempts ?? 3,
          backoff: { type: 'exponential', delay: options.backoffMs ?? 200 },
        },
      }),
  );
  let redactionKey: Promise<string> | undefined;
  const markerKey = (): Promise<string> => {
    redactionKey ??= loadRedactionKey(options.redis, keys, options.redactionKey).catch((error: unknown) => {
      redactionKey = undefined; // a Redis hiccup must not fail every later hook
      throw error;
    });
    return redactionKey;
  };
  const queueFor = (hookId: string): Queue<HookJobData> => queues[shardIndexOf(hookId, queues.length)] as Queue<HookJobData>;
  return {
    queue: queues[0] as Queue<HookJobData>,
    queues,
    shards,
    queueFor,
    async enqueue(job: HookJobData, options: EnqueueOptions = {}): Promise<void> {
      const checked = HookJobDataSchema.safeParse(job);
      if (!checked.success) throw new StoreInputError(`invalid hook job: ${describeIssues(checked.error.issues)}`);
      const { priority } = options;
      if (priority !== undefined && !(Number.isInteger(priority) && priority >= 1 && priority <= MAX_JOB_PRIORITY)) {
        throw new StoreInputError(`invalid job priority ${String(priority)}: a whole number from 1 to ${MAX_JOB_PRIORITY}`);
      }
      const key = await markerKey();
      const context = redactSecrets(checked.data.context, { credentialsInText: false, marker: (value) => redactionMarkerFor(key, value) });
      const data: HookJobData = { ...checked.data, context };
      const timestamp = options.enqueuedAt === undefined ? {} : { timestamp: Math.round(options.enqueuedAt) };
      await queueFor(data.hook_id).add(HOOK_JOB_NAME, data, { jobId: data.hook_id, ...timestamp, ...(priority === undefined ? {} : { priority }) });
    },
    async counts() {
      const total = { waiting: 0, active: 0, delayed: 0, failed: 0 };
      for (const queue of queues) {
        const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
        total.waiting += (counts['waiting'] ?? 0) + (counts['prioritized'] ?? 0);
        total.active += counts['active'] ?? 0;
        total.delayed += counts['delayed'] ?? 0;
        total.failed += counts['failed'] ?? 0;
      }
      return total;
    },
    async close() {
      await Promise.all(queues.map((queue) => queue.close()));
      await bull.close();
    },
  };
}
