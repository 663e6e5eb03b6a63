// Starts: the run's private Redis (or its cluster, AHP_TEST_REDIS=cluster). The replay log's
// appends (redaction, size cap, both retentions) and its merged, filtered reads; the replay
// queue's submit, status, progress, report and cancel with a real BullMQ worker.
import type { ConfigReplayJobData, ConfigReplayReport, ConfigReplayStatus } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigReplayCancelled,
  REPLAY_LOG_BUCKETS,
  createConfigReplayQueue,
  createConfigReplayWorker,
  createReplayLog,
  type RedisClient,
  type ReplayLogItem,
} from '../src/index.js';
import { eventually, makeDecision, makeSignal, openClient, randomUUID, recordingLogger, testKeys } from './support.js';

// Near now: reads select by stream id (Redis's clock) with five minutes of slack, then by `at`.
const T0 = Date.now() - 30_000;

async function collect(items: AsyncIterable<ReplayLogItem>): Promise<ReplayLogItem[]> {
  const all: ReplayLogItem[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function append(hookId: string, agentId: string, at: number, context: Record<string, unknown> = { tool: { name: 'bash', input: { command: 'ls' } } }) {
  return {
    hookId,
    trigger: 'pre-tool-use' as const,
    agent: { id: agentId, name: agentId },
    sessionId: `s-${agentId}`,
    context: context as never,
    decision: makeDecision(hookId, [makeSignal('block', 'shell')]),
    configVersion: 3,
    at,
  };
}

describe('replay log', () => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = await openClient('replay-log');
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('stores redacted contexts and reads them back oldest first across buckets, filtered and once per hook', async () => {
    const keys = testKeys('replay-log-read');
    const log = createReplayLog({ redis, keys });
    const ids = Array.from({ length: 40 }, () => randomUUID());
    // Spread over the buckets by hook id: the read merges them back into evaluation order.
    for (const [i, id] of ids.entries()) await log.append(append(id, i % 2 === 0 ? 'alice' : 'bob', T0 + i * 1000));
    await log.append(append(ids[3]!, 'bob', T0 + 3 * 1000)); // the same hook evaluated twice
    await log.append(
      append(randomUUID(), 'carol', T0 + 100_000, { tool: { name: 'bash', input: { command: 'curl -H "Authorization: Bearer abcdefghijklmnop" x', api_key: 'k-1' } } }),
    );

    const all = await collect(log.read({ sinceMs: T0, untilMs: T0 + 200_000 }));
    expect(all).toHaveLength(41);
    const records = all.flatMap((item) => (item.kind === 'record' ? [item.record] : []));
    expect(records.slice(0, 40).map((r) => r.hook_id)).toEqual(ids);
    expect(records[0]).toMatchObject({ trigger: 'pre-tool-use', config_version: 3, decision: { level: 'block', decided_by: 'oracles', rules: ['shell'], approval: false } });
    const carol = records[40]!;
    expect(JSON.stringify(carol.context)).not.toContain('abcdefghijklmnop');
    expect(carol.context).toMatchObject({ tool: { input: { api_key: '[redacted]' } } });

    const bob = await collect(log.read({ sinceMs: T0 + 10_000, untilMs: T0 + 20_000, agentId: 'bob', trigger: 'pre-tool-use' }));
    expect(bob.map((item) => item.kind === 'record' && item.record.hook_id)).toEqual([11, 13, 15, 17, 19].map((i) => ids[i]));
    expect(await collect(log.read({ sinceMs: T0, untilMs: T0 + 200_000, trigger: 'post-tool-use' }))).toEqual([]);
    // Spread over the buckets, each its own hash tag.
    let used = 0;
    for (let bucket = 0; bucket < REPLAY_LOG_BUCKETS; bucket += 1) if ((await redis.exists(keys.replayLog(bucket))) === 1) used += 1;
    expect(used).toBeGreaterThan(1);
  });

  it('keeps the context out of an entry over the size cap, and counts entries that do not parse', async () => {
    const keys = testKeys('replay-log-cap');
    const log = createReplayLog({ redis, keys, maxContextBytes: 100 });
    const big = randomUUID();
    await log.append(append(big, 'alice', T0, { tool: { name: 'write', input: { content: 'x'.repeat(500) } } }));
    await redis.xAdd(keys.replayLog(0), '*', { r: '{"not":"a record"}' });
    const items = await collect(log.read({ sinceMs: 0, untilMs: Date.now() + 1000 }));
    const record = items.find((item) => item.kind === 'record');
    expect(record?.kind === 'record' && record.record.context).toBeUndefined();
    expect(record?.kind === 'record' && record.record.context_bytes).toBeGreaterThan(500);
    expect(items.filter((item) => item.kind === 'unreadable')).toHaveLength(1);
  });

  it('trims each bucket by count on append, and expires a bucket after the retention', async () => {
    const keys = testKeys('replay-log-trim');
    const log = createReplayLog({ redis, keys, maxEntries: REPLAY_LOG_BUCKETS * 10, retentionMs: 3_600_000 });
    for (let i = 0; i < 2000; i += 1) await log.append(append(randomUUID(), 'alice', T0 + i));
    let total = 0;
    for (let bucket = 0; bucket < REPLAY_LOG_BUCKETS; bucket += 1) {
      total += await redis.xLen(keys.replayLog(bucket));
      const ttl = await redis.pTTL(keys.replayLog(bucket));
      // The retention plus the refresh interval (a sixteenth of it): each writer refreshes a bucket's TTL once per interval.
      expect(ttl).toBeGreaterThan(3_600_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000 + 225_000);
    }
    // Approximate trimming keeps whole stream nodes (100 entries each by default) beyond the cap.
    expect(total).toBeLessThan(2000);
    expect(total).toBeLessThanOrEqual(REPLAY_LOG_BUCKETS * (10 + 100));
  });
});

describe('replay queue', () => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = await openClient('replay-queue');
  });
  afterAll(async () => {
    await redis?.close();
  });

  const job = (id: string): ConfigReplayJobData => ({
    replay_id: id,
    source: 'hooks: {}\n',
    since_ms: T0,
    until_ms: T0 + 1000,
    limit: 10,
    requested_by: 'op-root',
    requested_at: new Date().toISOString(),
  });
  const report: ConfigReplayReport = {
    since: new Date(T0).toISOString(),
    until: new Date(T0 + 1000).toISOString(),
    total: 0,
    unchanged: 0,
    changed: 0,
    rules_changed: 0,
    skipped: { oversize: 0, unreadable: 0 },
    truncated: false,
    recorded_versions: [],
    transitions: [],
    by_rule: [],
    by_agent: [],
    examples: [],
    approvals: { count: 0, examples: [] },
    oracle_errors: [],
  };

  it('runs a job on a worker: progress, then the report', async () => {
    const keys = testKeys('replay-queue-run');
    const queue = createConfigReplayQueue({ redis, keys });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = createConfigReplayWorker({
      redis,
      keys,
      logger: recordingLogger(),
      processor: async (_data, context) => {
        await context.progress({ read: 5, fraction: 0.5 });
        await gate;
        return report;
      },
    });
    try {
      const id = randomUUID();
      const submitted = await queue.submit(job(id));
      expect(submitted).toMatchObject({ id, requested_by: 'op-root' });
      await eventually(async () => ((await queue.status(id))?.progress.read === 5 ? true : undefined), 'progress');
      expect(await queue.status(id)).toMatchObject({ state: 'active', progress: { read: 5, fraction: 0.5 } });
      release();
      const done = await eventually(async () => {
        const status = await queue.status(id);
        return status?.state === 'completed' ? status : undefined;
      }, 'the report');
      expect(done.report).toEqual(report);
      expect(await queue.status(randomUUID())).toBeNull();
    } finally {
      release();
      await worker.close();
      await queue.close();
    }
  });

  it('cancels a waiting job at once and a running one at its next page', async () => {
    const keys = testKeys('replay-queue-cancel');
    const queue = createConfigReplayQueue({ redis, keys });
    const waiting = randomUUID();
    await queue.submit(job(waiting));
    expect(await queue.cancel(waiting)).toMatchObject({ id: waiting, state: 'cancelled' });
    expect(await queue.status(waiting)).toMatchObject({ id: waiting, state: 'cancelled' });

    const running = randomUUID();
    const worker = createConfigReplayWorker({
      redis,
      keys,
      logger: recordingLogger(),
      processor: async (_data, context) => {
        for (;;) {
          if (await context.cancelled()) throw new ConfigReplayCancelled();
          await context.progress({ read: 1, fraction: 0.1 });
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      },
    });
    try {
      await queue.submit(job(running));
      await eventually(async () => ((await queue.status(running))?.state === 'active' ? true : undefined), 'the job to start');
      await queue.cancel(running);
      const ended = await eventually(async () => {
        const status: ConfigReplayStatus | null = await queue.status(running);
        return status?.state === 'cancelled' ? status : undefined;
      }, 'the job to stop');
      expect(ended.report).toBeUndefined();
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
