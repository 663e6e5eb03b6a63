/**
 * HookQueue and HookWorker against the run's Redis: real BullMQ over node-redis.
 */
import type { HookJobData } from '@ahp/protocol';
import type { Job } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  StoreInputError,
  createHookQueue,
  createHookWorker,
  type HookProcessor,
  type HookWorker,
  type RedisClient,
  type RedisHookQueue,
  type StoreKeys,
} from '../src/index.js';
import { eventually, openClient, randomUUID, recordingLogger, testKeys, type RecordingLogger } from './support.js';

let redis: RedisClient;
let keys: StoreKeys;
let queue: RedisHookQueue;
let logger: RecordingLogger;
const workers: HookWorker[] = [];

beforeAll(async () => {
  redis = await openClient('store-test:queue');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  logger = recordingLogger();
  queue = createHookQueue({ redis, keys, backoffMs: 10 });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
  await queue.close();
});

function jobData(overrides: Partial<HookJobData> = {}): HookJobData {
  const now = Date.now();
  return {
    hook_id: randomUUID(),
    trigger: 'pre-tool-use',
    agent: { id: 'agent-1', name: 'Agent 1' },
    session_id: 'session-1',
    context: { tool: 'bash', input: { command: 'ls' } },
    enqueued_at: now,
    deadline_at: now + 5_000,
    ...overrides,
  };
}

function startWorker(processor: HookProcessor, autorun = true): HookWorker {
  const worker = createHookWorker({
    redis,
    keys,
    processor,
    logger,
    concurrency: 4,
    lockDurationMs: 2_000,
    stalledIntervalMs: 1_000,
    maxStalledCount: 1,
    autorun,
  });
  workers.push(worker);
  return worker;
}

/** Resolves with the next job that completes (or fails, when `event` says so). */
function next(worker: HookWorker, event: 'completed' | 'failed'): Promise<Job> {
  return new Promise((resolve) => worker.worker.once(event, (job: Job | undefined) => resolve(job!)));
}

describe('HookQueue and HookWorker', () => {
  it('takes every job without a priority before any job enqueued with one, and prioritized ones lowest number first', async () => {
    const order: string[] = [];
    const heavy = [3, 1, 2].map((priority) => ({ data: jobData({ agent: { id: 'heavy', name: 'Heavy' } }), priority }));
    for (const { data, priority } of heavy) await queue.enqueue(data, { priority });
    const light = jobData({ agent: { id: 'light', name: 'Light' } });
    await queue.enqueue(light);
    expect(await queue.queue.getJobState(light.hook_id)).toBe('waiting');
    expect(await queue.queue.getJobState(heavy[0]!.data.hook_id)).toBe('prioritized');

    const worker = createHookWorker({
      redis,
      keys,
      processor: async (job) => {
        order.push(job.agent.id === 'light' ? 'light' : `heavy-${heavy.find((h) => h.data.hook_id === job.hook_id)!.priority}`);
      },
      logger,
      concurrency: 1,
      lockDurationMs: 2_000,
      stalledIntervalMs: 1_000,
      maxStalledCount: 1,
    });
    workers.push(worker);
    await eventually(() => (order.length === 4 ? true : undefined), 'the four jobs to run');
    expect(order).toEqual(['light', 'heavy-1', 'heavy-2', 'heavy-3']);
  });

  it('runs a job: the processor gets the parsed data and the job id, and the job is removed on completion', async () => {
    const calls: { job: HookJobData; meta: { jobId: string; attemptsMade: number; enqueuedAt?: number } }[] = [];
    const worker = startWorker(async (job, meta) => {
      calls.push({ job, meta });
    });
    const completed = next(worker, 'completed');
    const data = jobData();
    const before = Date.now();
    await queue.enqueue(data);
    await completed;

    // enqueuedAt is BullMQ's job timestamp: when the gateway added it (the drill-down's "enqueued").
    expect(calls).toEqual([{ job: data, meta: { jobId: data.hook_id, attemptsMade: 0, enqueuedAt: expect.any(Number) } }]);
    expect(calls[0]?.meta.enqueuedAt).toBeGreaterThanOrEqual(before);
    expect(await queue.queue.getJob(data.hook_id)).toBeUndefined();
    expect(await queue.counts()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  it('queues a job with the enqueue time the gateway gives (where its receive span ends), which the worker is handed', async () => {
    const seen: (number | undefined)[] = [];
    const worker = startWorker(async (_job, meta) => {
      seen.push(meta.enqueuedAt);
    });
    const completed = next(worker, 'completed');
    const enqueuedAt = Date.now() - 7;
    await queue.enqueue(jobData(), { enqueuedAt });
    await completed;
    expect(seen).toEqual([enqueuedAt]);
  });

  it('ignores a second enqueue of a hook that is still queued', async () => {
    const data = jobData();
    await queue.enqueue(data);
    await queue.enqueue({ ...data, context: { retried: true } });
    expect(await queue.counts()).toMatchObject({ waiting: 1 });

    const seen: HookJobData[] = [];
    const worker = startWorker(async (job) => {
      seen.push(job);
    }, false);
    const completed = next(worker, 'completed');
    void worker.worker.run();
    await completed;
    await eventually(async () => ((await queue.counts()).waiting === 0 ? true : undefined), 'an empty queue');
    expect(seen).toEqual([data]);
  });

  it('fails a job whose data does not parse at once, without retries, and logs it', async () => {
    let calls = 0;
    const worker = startWorker(async () => {
      calls += 1;
    });
    const failed = next(worker, 'failed');
    const jobId = randomUUID();
    await queue.queue.add('evaluate', { hook_id: jobId, trigger: 'not-a-trigger' } as unknown as HookJobData, { jobId });
    const job = await failed;

    expect(job.id).toBe(jobId);
    expect(job.failedReason).toMatch(/invalid hook job data/);
    expect(await job.getState()).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect(calls).toBe(0);
    expect(logger.lines.some((line) => line.level === 'error' && line.fields['jobId'] === jobId)).toBe(true);
    expect(await queue.counts()).toMatchObject({ failed: 1, waiting: 0, delayed: 0 });
  });

  it('retries a job whose processor throws once', async () => {
    const attempts: number[] = [];
    const worker = startWorker(async (_job, meta) => {
      attempts.push(meta.attemptsMade);
      if (attempts.length === 1) throw new Error('redis hiccup');
    });
    const completed = next(worker, 'completed');
    const data = jobData();
    await queue.enqueue(data);
    const job = await completed;

    expect(job.id).toBe(data.hook_id);
    expect(attempts).toEqual([0, 1]);
    expect(logger.lines.some((line) => line.message === 'hook job attempt failed' && line.fields['correlationId'] === data.hook_id)).toBe(true);
  });

  it('refuses to enqueue data that does not parse', async () => {
    await expect(queue.enqueue(jobData({ deadline_at: -1 }))).rejects.toBeInstanceOf(StoreInputError);
    expect(await queue.counts()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });
});
