/**
 * What the replay log costs (docs/hooks.md, "Replay a candidate configuration"), on a private
 * ephemeral Redis: a standalone script, not a phase —
 * `node tools/bench/dist/micro/replay-log-cost.js [hooks] [lanes]` (default 100 000 hooks, 16 decisions in flight).
 *
 * 1. Redis memory per 100k recorded hooks: `INFO memory` before and after appending a mix of
 *    ordinary contexts, and the sum of `MEMORY USAGE` of the log's buckets.
 * 2. The append itself: worker CPU per hook (redaction, JSON, the client) and Redis CPU per
 *    append (`INFO commandstats`, usec per call of the script).
 * 3. The decision's path: `decide` latency as the worker runs it, with the recording started in
 *    the next turn of the event loop (as processor.ts does) against without, rounds alternating
 *    so both sides see the same machine. Figures move with the machine's load.
 */
import { randomUUID } from 'node:crypto';
import { provideRedis } from '@ahp/embedded-redis';
import { aggregateSignals, type HookDecision, type JsonObject, type Signal } from '@ahp/protocol';
import { REPLAY_LOG_BUCKETS, connectRedis, createKeys, createRedisStores, createReplayLog, replayRecordOf, type RedisClient, type ReplayLogAppend } from '@ahp/store';

const HOOKS = Number(process.argv[2] ?? 100_000);
/** Decisions in flight in part 3 (a worker's AHP_WORKER_CONCURRENCY). */
const LANES = Number(process.argv[3] ?? 16);
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** An ordinary mix: 60 % shell commands, 30 % file edits (~600 B), 10 % post-tool-use with ~2 KB of output. */
function contextOf(i: number): JsonObject {
  const kind = i % 10;
  if (kind < 6) return { tool: { name: 'Bash', input: { command: `git status && npm test -- --filter case-${i}`, description: 'Run the tests' } }, cwd: '/home/dev/project' };
  if (kind < 9) {
    return {
      tool: { name: 'Edit', input: { file_path: `/home/dev/project/src/module-${i % 50}.ts`, old_string: 'const a = 1;\n'.repeat(25), new_string: 'const a = 2;\n'.repeat(25) } },
      cwd: '/home/dev/project',
    };
  }
  return { tool: { name: 'Bash', input: { command: 'npm test' }, output: 'ok 1 - passes\n'.repeat(140) }, cwd: '/home/dev/project' };
}

function signal(i: number): Signal {
  return {
    header: { id: randomUUID(), type: 'permission-check', timestamp: new Date().toISOString(), source: 'guard', intensity: 'control' },
    context: { rule: `rule-${i % 7}` },
    payload: { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'timeout', original: null, updated: 60, reason: 'bounded' }], reversible: true },
  };
}

function decisionOf(hookId: string, i: number): HookDecision {
  return aggregateSignals({ hookId, trigger: 'pre-tool-use', signals: i % 4 === 0 ? [signal(i)] : [], now: new Date().toISOString(), configVersion: 3 });
}

function appendOf(i: number): ReplayLogAppend {
  const hookId = randomUUID();
  return {
    hookId,
    trigger: 'pre-tool-use',
    agent: { id: `agent-${i % 40}`, name: `Agent ${i % 40}`, team: 'platform', role: 'teammate' },
    sessionId: `session-${i % 200}`,
    context: contextOf(i),
    decision: decisionOf(hookId, i),
    configVersion: 3,
    at: Date.now(),
  };
}

async function info(redis: RedisClient, section: string): Promise<Map<string, string>> {
  const text = String(await redis.info(section));
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 1));
  }
  return fields;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

async function main(): Promise<void> {
  const handle = await provideRedis({ mode: 'ephemeral' });
  const redis = await connectRedis({ url: handle.url, name: 'replay-log-cost', logger: silent });
  try {
    const keys = createKeys({ prefix: `bench-replay-${process.pid}` });
    const log = createReplayLog({ redis, keys, maxEntries: Math.max(HOOKS, 1) });

    // 1 and 2: memory, worker CPU, Redis CPU.
    const inputs = Array.from({ length: 2000 }, (_, i) => appendOf(i));
    const serialized = inputs.map((input) => replayRecordOf(input, 16 * 1024).json.length);
    await redis.configResetStat();
    const memoryBefore = Number((await info(redis, 'memory')).get('used_memory'));
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const CONCURRENCY = 32;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < HOOKS) {
          const i = next;
          next += 1;
          const input = inputs[i % inputs.length] ?? appendOf(i);
          await log.append({ ...input, hookId: randomUUID() });
        }
      }),
    );
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const memoryAfter = Number((await info(redis, 'memory')).get('used_memory'));
    let keyBytes = 0;
    let entries = 0;
    for (let bucket = 0; bucket < REPLAY_LOG_BUCKETS; bucket += 1) {
      keyBytes += Number(await redis.memoryUsage(keys.replayLog(bucket), { SAMPLES: 0 }));
      entries += await redis.xLen(keys.replayLog(bucket));
    }
    const stats = await info(redis, 'commandstats');
    const evalsha = /usec_per_call=([\d.]+)/.exec(stats.get('cmdstat_evalsha') ?? '')?.[1];
    const meanRecord = serialized.reduce((a, b) => a + b, 0) / serialized.length;

    // 3: decide latency, with and without the recording beside it (processor.ts's pattern).
    const stores = createRedisStores({ redis, keys });
    const ROUNDS = 20;
    const PER_ROUND = 200;
    const latencies: Record<'with' | 'without', number[]> = { with: [], without: [] };
    for (let round = 0; round < ROUNDS * 2; round += 1) {
      const side = round % 2 === 0 ? 'without' : 'with';
      await Promise.all(
        Array.from({ length: LANES }, async (_, lane) => {
          for (let n = lane; n < PER_ROUND; n += LANES) {
            const input = appendOf(n);
            const now = Date.now();
            await stores.hooks.open({ hookId: input.hookId, agentId: input.agent.id, sessionId: input.sessionId, gatewayId: 'gw-bench', trigger: 'pre-tool-use', now, deadlineAt: now + 60_000 });
            const t0 = performance.now();
            const storing = stores.hooks.decide(input.hookId, input.decision, Date.now());
            const recorded = side === 'with' ? new Promise<void>((resolve) => setImmediate(() => void log.append(input).then(resolve, resolve))) : undefined;
            await storing;
            latencies[side].push(performance.now() - t0);
            await recorded;
          }
        }),
      );
    }
    const summary = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { p50_ms: Number(percentile(sorted, 0.5).toFixed(3)), p99_ms: Number(percentile(sorted, 0.99).toFixed(3)) };
    };

    process.stdout.write(
      `${JSON.stringify(
        {
          hooks: HOOKS,
          entries_kept: entries,
          mean_record_bytes: Math.round(meanRecord),
          redis_used_memory_delta_bytes: memoryAfter - memoryBefore,
          redis_memory_usage_of_buckets_bytes: keyBytes,
          bytes_per_hook: Math.round(keyBytes / Math.max(1, entries)),
          mb_per_100k_hooks: Number(((keyBytes / Math.max(1, entries)) * 100_000 / 1024 / 1024).toFixed(1)),
          worker_cpu_us_per_append: Number((((cpu.user + cpu.system) / HOOKS)).toFixed(1)),
          appends_per_second: Math.round(HOOKS / (wallMs / 1000)),
          redis_usec_per_append: evalsha === undefined ? null : Number(evalsha),
          decisions_in_flight: LANES,
          decide_latency_without_recording: summary(latencies.without),
          decide_latency_with_recording: summary(latencies.with),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await redis.close();
    await handle.stop();
  }
}

await main();
