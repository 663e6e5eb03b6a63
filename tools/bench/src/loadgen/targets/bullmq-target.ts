/**
 * `bullmq` baseline, producer side: add a job, and see its completion the way the gateway sees a
 * decision — the worker XADDs to this producer's stream, which a dedicated connection reads with
 * a blocking XREAD (libs/store/src/decision-feed.ts).
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { createClient, type RedisClientType } from 'redis';
import { BASELINE_JOB_OPTIONS, REPLY_JOB_FIELD } from '../../shared/bullmq-settings.js';
import { hookEvent } from '../../workload/hook-events.js';
import { withTimeout, type LoadTarget } from './target.js';

/** How long a job may take before it counts as failed; far above any healthy round trip. */
const JOB_TIMEOUT_MS = 30_000;

export interface BullmqTargetOptions {
  redisUrl: string;
  prefix: string;
  queue: string;
  replyStream: string;
}

export async function openBullmqTarget(options: BullmqTargetOptions): Promise<LoadTarget> {
  const client: RedisClientType = createClient({ url: options.redisUrl, name: 'bench-bullmq-producer' });
  const reader: RedisClientType = client.duplicate({ name: 'bench-bullmq-reader' });
  // Failures surface as failed operations; the listeners only keep node-redis from throwing.
  client.on('error', () => undefined);
  reader.on('error', () => undefined);
  await Promise.all([client.connect(), reader.connect()]);
  const queue = new Queue(options.queue, { connection: client, prefix: options.prefix, defaultJobOptions: BASELINE_JOB_OPTIONS });
  await queue.waitUntilReady();

  const waiting = new Map<string, () => void>();
  const newest = await reader.xRevRange(options.replyStream, '+', '-', { COUNT: 1 });
  let running = true;
  const loop = (async () => {
    let lastId = newest?.[0]?.id ?? '0-0';
    while (running) {
      const reply = await reader.xRead({ key: options.replyStream, id: lastId }, { BLOCK: 5000, COUNT: 100 }).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 100)); // a lost connection: do not spin while it comes back
        return null;
      });
      for (const stream of (reply ?? []) as { messages: { id: string; message: Record<string, string> }[] }[]) {
        for (const { id, message } of stream.messages) {
          lastId = id;
          const job = message[REPLY_JOB_FIELD];
          if (job === undefined) continue;
          waiting.get(job)?.();
          waiting.delete(job);
        }
      }
    }
  })();

  const data = { reply_to: options.replyStream, context: hookEvent(0).context };
  return {
    report: { connections: 2, failed: 0, failures: [] },
    op: async () => {
      const jobId = randomUUID();
      const done = new Promise<void>((resolve) => waiting.set(jobId, resolve));
      await queue.add('noop', data, { jobId });
      await withTimeout(done, JOB_TIMEOUT_MS, 'E_TIMEOUT', () => waiting.delete(jobId));
    },
    close: async () => {
      running = false;
      reader.destroy();
      await loop;
      await queue.close();
      client.destroy();
    },
  };
}
