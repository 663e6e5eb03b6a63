/**
 * `bullmq` baseline worker: a BullMQ worker with the oracle worker's settings whose processor
 * does nothing but report completion the way the product routes a decision — XADD to the
 * producer's stream (`reply_to` in the job data), trimmed like a gateway's decision stream.
 *
 * Environment: REDIS_URL, BENCH_QUEUE, BENCH_PREFIX, BENCH_CONCURRENCY.
 */
import { Worker, type Job } from 'bullmq';
import { createClient, type RedisClientType } from 'redis';
import { BASELINE_WORKER_OPTIONS, REPLY_JOB_FIELD, REPLY_STREAM_MAX_LEN, WORKER_CONCURRENCY } from '../shared/bullmq-settings.js';
import { announceReady, exitOnSignal } from './ready-line.js';

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  // One client for the processor's commands; BullMQ duplicates it for its own (blocking) use, as
  // the oracle worker's does.
  const client: RedisClientType = createClient({ url: env('REDIS_URL'), name: 'bench-bullmq-worker' });
  client.on('error', (error: Error) => console.error(`redis: ${error.message}`));
  await client.connect();
  const processor = async (job: Job<{ reply_to: string }>) => {
    await client.xAdd(job.data.reply_to, '*', { [REPLY_JOB_FIELD]: job.id ?? '' }, {
      TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: REPLY_STREAM_MAX_LEN },
    });
  };
  const worker = new Worker(env('BENCH_QUEUE'), processor, {
    connection: client,
    prefix: env('BENCH_PREFIX'),
    concurrency: Number(process.env['BENCH_CONCURRENCY'] ?? WORKER_CONCURRENCY),
    ...BASELINE_WORKER_OPTIONS,
  });
  worker.on('error', (error) => console.error(`worker: ${error.message}`));
  await worker.waitUntilReady();
  announceReady('bullmq-worker', { concurrency: worker.opts.concurrency });
  exitOnSignal(async () => {
    await worker.close();
    client.destroy();
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
