/**
 * The BullMQ settings of the bare BullMQ baseline, copied from the product so that the baseline
 * differs from it only by what the product adds: libs/store/src/hook-queue.ts (job options) and
 * apps/oracle-worker/src/config.ts (the worker's defaults).
 */
import type { JobsOptions, WorkerOptions } from 'bullmq';

/** Job options of `createHookQueue`'s defaults. */
export const BASELINE_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: true,
  removeOnFail: { age: 3600 },
  attempts: 3,
  backoff: { type: 'exponential', delay: 200 },
};

/** The oracle worker's default concurrency (`AHP_WORKER_CONCURRENCY`). */
export const WORKER_CONCURRENCY = 16;

/**
 * Lock and stall settings of the oracle worker's defaults (a spec compares them with the worker's
 * own `--describe-config`): a shorter lock means more renewals and stalled checks, which the
 * baseline must pay too.
 */
export const BASELINE_WORKER_OPTIONS: Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> = {
  lockDuration: 4_000,
  stalledInterval: 2_000,
  maxStalledCount: 2,
};

/** The field of a stream entry naming the completed job. */
export const REPLY_JOB_FIELD = 'job';

/** Approximate length the reply stream is trimmed to, as the product trims a gateway's decision stream. */
export const REPLY_STREAM_MAX_LEN = 10_000;
