/**
 * The sharded hook queue on a real 3-master Redis Cluster (started here with
 * tools/embedded-redis startRedisCluster): real BullMQ over an ioredis Cluster connection, three
 * queues under their own hash tags, one per master; a re-sent hook id lands on its shard and is
 * deduplicated there; one worker consumes every shard, or a worker given a subset exactly that
 * subset; the shard count is fixed per deployment.
 */
import { startRedisCluster, type RedisClusterHandle } from '@ahp/embedded-redis';
import type { HookJobData } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectRedis,
  createHookQueue,
  createHookWorker,
  createKeys,
  hookQueueShards,
  keySlot,
  resolveHookQueueShardCount,
  shardIndexOf,
  slotRangesCheck,
  type RedisClient,
} from '../src/index.js';
import { eventually, randomUUID, recordingLogger } from './support.js';

let cluster: RedisClusterHandle;
let redis: RedisClient;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  redis = await connectRedis({ clusterNodes: cluster.nodeList, name: 'store-test:shards', logger: recordingLogger() });
});
afterAll(async () => {
  await redis?.close();
  await cluster?.stop();
});

function jobData(hookId = randomUUID()): HookJobData {
  const now = Date.now();
  return {
    hook_id: hookId,
    trigger: 'pre-tool-use',
    agent: { id: 'agent-1', name: 'Agent 1' },
    session_id: 'session-1',
    context: { tool: 'bash', input: { command: 'ls' } },
    enqueued_at: now,
    deadline_at: now + 5_000,
  };
}

describe('sharded hook queue on a Redis Cluster', () => {
  it('puts shard i of K in the i-th even slot range, so K = masters gives one queue per master', () => {
    const keys = createKeys({ prefix: 'ahp' });
    const shards = hookQueueShards(keys, 3, true);
    expect(slotRangesCheck(shards.map((shard) => keySlot(`${shard.prefix}:${shard.name}:wait`)), 3)).toBe(true);
    // One Redis with K = 1 keeps the queue it always had.
    expect(hookQueueShards(keys, 1, false)).toEqual([{ index: 0, prefix: 'ahp:bull', name: 'hooks' }]);
  });

  it('defaults K to the number of masters, stores it, and refuses a process configured otherwise', async () => {
    const keys = createKeys({ prefix: `ahp:test:k:${randomUUID().slice(0, 8)}` });
    expect(await resolveHookQueueShardCount(redis, keys)).toBe(3);
    expect(await resolveHookQueueShardCount(redis, keys, 3)).toBe(3);
    await expect(resolveHookQueueShardCount(redis, keys, 4)).rejects.toThrow(/AHP_HOOK_QUEUE_SHARDS=4, but this deployment's hook queue has 3 shard/);
  });

  it('spreads hooks over the shards by hook id, dedups a re-sent hook on its shard, and one worker evaluates every one once', async () => {
    const keys = createKeys({ prefix: `ahp:test:q:${randomUUID().slice(0, 8)}` });
    const queue = createHookQueue({ redis, keys, shards: 3 });
    const hooks = Array.from({ length: 60 }, () => jobData());
    try {
      for (const job of hooks) await queue.enqueue(job);
      // Re-sent: same id, same shard, no second job.
      for (const job of hooks.slice(0, 10)) await queue.enqueue(job);
      const perShard = await Promise.all(queue.queues.map((shardQueue) => shardQueue.getJobCounts('waiting')));
      expect(perShard.reduce((sum, counts) => sum + (counts['waiting'] ?? 0), 0)).toBe(60);
      for (const counts of perShard) expect(counts['waiting']).toBeGreaterThan(0);
      for (const job of hooks) expect(await queue.queues[shardIndexOf(job.hook_id, 3)]?.getJob(job.hook_id)).toBeDefined();

      const seen: string[] = [];
      const worker = createHookWorker({ redis, keys, shards: 3, logger: recordingLogger(), processor: async (job) => void seen.push(job.hook_id) });
      try {
        await eventually(() => (seen.length >= 60 ? true : undefined), 'every hook evaluated', 20_000);
        expect(new Set(seen).size).toBe(60);
        expect(seen).toHaveLength(60);
        expect(await queue.counts()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
      } finally {
        await worker.close();
      }
    } finally {
      await queue.close();
    }
  });

  it('lets a worker consume a subset of the shards (AHP_WORKER_SHARDS): exactly those, the others left to another worker', async () => {
    const keys = createKeys({ prefix: `ahp:test:sub:${randomUUID().slice(0, 8)}` });
    const queue = createHookQueue({ redis, keys, shards: 3 });
    const hooks = Array.from({ length: 45 }, () => jobData());
    const onShard = (index: number) => hooks.filter((job) => shardIndexOf(job.hook_id, 3) === index).map((job) => job.hook_id);
    try {
      for (const job of hooks) await queue.enqueue(job);
      expect(onShard(1).length).toBeGreaterThan(0);
      expect(() => createHookWorker({ redis, keys, shards: 3, consumeShards: [5], logger: recordingLogger(), processor: async () => undefined })).toThrow(RangeError);

      const outer: string[] = [];
      const first = createHookWorker({ redis, keys, shards: 3, consumeShards: [0, 2], logger: recordingLogger(), processor: async (job) => void outer.push(job.hook_id) });
      try {
        const expected = [...onShard(0), ...onShard(2)];
        await eventually(() => (outer.length >= expected.length ? true : undefined), 'the hooks of shards 0 and 2 evaluated', 20_000);
        expect(outer.sort()).toEqual(expected.sort());
        // Shard 1 is nobody's yet: its hooks wait, untouched.
        expect(await queue.queues[1]?.getJobCounts('waiting', 'active')).toEqual({ waiting: onShard(1).length, active: 0 });
      } finally {
        await first.close();
      }

      const middle: string[] = [];
      const second = createHookWorker({ redis, keys, shards: 3, consumeShards: [1], logger: recordingLogger(), processor: async (job) => void middle.push(job.hook_id) });
      try {
        await eventually(() => (middle.length >= onShard(1).length ? true : undefined), 'the hooks of shard 1 evaluated', 20_000);
        expect(middle.sort()).toEqual(onShard(1).sort());
        expect(await queue.counts()).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
      } finally {
        await second.close();
      }
    } finally {
      await queue.close();
    }
  });
});
