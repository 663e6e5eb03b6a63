/**
 * What the partial drill-down's replay-log lookup costs (docs/console.md, "Hook drill-down: where
 * the numbers come from"), on a private ephemeral Redis: a standalone script, not a phase —
 * `node tools/bench/dist/micro/drill-down-lookup-cost.js [rate] [lookups]` (default 1 330 hooks/s,
 * the benchmark's sustained rate, and 100 lookups).
 *
 * One replay-log bucket is filled as the rate would fill it (an eighth of the hooks, stream ids
 * spaced accordingly, ~1 KB records of the hook's own shape), then `findReplayRecord` looks up
 * hooks whose entry is there and hooks whose entry is not (the whole window is read): XRANGE
 * calls, entries read and wall time per lookup. Figures move with the machine's load.
 */
import { randomUUID } from 'node:crypto';
import { provideRedis } from '@ahp/embedded-redis';
import { aggregateSignals } from '@ahp/protocol';
import { REPLAY_LOG_BUCKETS, REPLAY_LOOKUP_AFTER_MS, REPLAY_LOOKUP_BEFORE_MS, connectRedis, createKeys, findReplayRecord, replayRecordOf, shardIndexOf, type RedisClient } from '@ahp/store';

const RATE = Number(process.argv[2] ?? 1_330);
const LOOKUPS = Number(process.argv[3] ?? 100);
const BUCKET = 3;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

function idInBucket(): string {
  for (;;) {
    const id = randomUUID();
    if (shardIndexOf(id, REPLAY_LOG_BUCKETS) === BUCKET) return id;
  }
}

async function main(): Promise<void> {
  const handle = await provideRedis({ mode: 'ephemeral' });
  const redis = await connectRedis({ url: handle.url, name: 'drill-down-lookup-cost', logger: silent });
  try {
    const keys = createKeys({ prefix: `bench-lookup-${process.pid}` });
    const key = keys.replayLog(BUCKET);
    const perBucketMs = 1_000 / (RATE / REPLAY_LOG_BUCKETS);
    const spacing = 1_000;
    const entries = LOOKUPS * spacing + spacing;
    const start = Date.now() - entries * perBucketMs;
    const targets: { hookId: string; at: number }[] = [];
    for (let i = 0; i < entries; i += 1) {
      const at = Math.floor(start + i * perBucketMs);
      const hookId = idInBucket();
      if (i % spacing === spacing / 2 && targets.length < LOOKUPS) targets.push({ hookId, at });
      const decision = aggregateSignals({ hookId, trigger: 'pre-tool-use', signals: [], now: new Date(at).toISOString(), configVersion: 3 });
      const { json } = replayRecordOf(
        { hookId, trigger: 'pre-tool-use', agent: { id: 'agent-1', name: 'Agent 1' }, sessionId: 'session-1', context: { tool: { name: 'Bash', input: { command: `ls ${'x'.repeat(800)}` } } }, decision, configVersion: 3, at },
        16_384,
      );
      await redis.xAdd(key, `${String(at)}-${String(i)}`, { r: json });
    }

    let calls = 0;
    let read = 0;
    const counting = new Proxy(redis, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property !== 'xRange' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          calls += 1;
          const page = (await (value as (...a: unknown[]) => Promise<unknown[] | null>).apply(target, args)) ?? [];
          read += page.length;
          return page;
        };
      },
    }) as RedisClient;

    const report: Record<string, unknown> = { rate_hooks_per_s: RATE, bucket_entries_per_s: Math.round(RATE / REPLAY_LOG_BUCKETS), window_ms: [-REPLAY_LOOKUP_BEFORE_MS, REPLAY_LOOKUP_AFTER_MS] };
    for (const kind of ['found', 'missing'] as const) {
      calls = 0;
      read = 0;
      let found = 0;
      const t0 = process.hrtime.bigint();
      for (const target of targets) {
        if ((await findReplayRecord(counting, keys, kind === 'found' ? target.hookId : idInBucket(), target.at)) !== undefined) found += 1;
      }
      const ms = Number(process.hrtime.bigint() - t0) / 1e6 / targets.length;
      report[kind] = { lookups: targets.length, found, xrange_calls: calls / targets.length, entries_read: read / targets.length, ms_per_lookup: Math.round(ms * 100) / 100 };
    }
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await redis.close();
    await handle.stop();
  }
}

await main();
