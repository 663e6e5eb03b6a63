/**
 * One Redis against a Redis Cluster, in one run: the same flat-out decision load (the SDK agents,
 * the same workers) first on the run's own Redis, then on a private cluster of
 * `plan.shardsMasters` masters (tools/embedded-redis) with as many hook queue shards. Each side
 * reports decisions/s, p50/p99, the Redis commands per decision of each master (each master's
 * own `INFO commandstats` delta) and its CPU per decision (its `INFO cpu` delta: what a master's
 * capacity is made of, and what the projection per added master in BENCHMARKS.md starts from),
 * in all and above its idle rate (read over a short window with the agents connected just before),
 * and the cluster side how far its busiest master is above an even share of the commands (goal ≤ 1.3×).
 *
 * A side that cannot run (a cross-slot script refused by the cluster, agents that cannot connect,
 * a side that does not finish in time) is recorded as failed with the first error, the other side
 * still reports, and the phase fails naming it: a cluster that does not work is a finding to fix,
 * not a number.
 */
import { startRedisCluster } from '@ahp/embedded-redis';
import { createClient } from 'redis';
import { measured, throughput, type Phase, type PhaseContext } from '../orchestrator/context.js';
import { ProductStack } from '../orchestrator/product-stack.js';
import type { StackRedisTarget } from '../orchestrator/publish-rules.js';
import { diffCommandStats, parseCommandStats, type CommandDelta, type CommandStats } from '../redis/commandstats.js';
import { cpuSpreadText, parseRedisCpuSeconds, SHARD_SKEW_GOAL, shardSpread } from '../redis/shard-share.js';
import { count } from '../report/format.js';
import type { ShardsSide } from '../results.js';
import { latencyLine } from './common.js';

/** The idle window before the measured one, ms (at most the measured window). */
const IDLE_WINDOW_MS = 2000;

/** How long one side may take beyond its measuring window (stack start, warm-up, agents, drain) before it counts as hung. */
const SIDE_SLACK_MS = 120_000;

/** One node's counters at one instant. */
interface NodeReading {
  commands: CommandStats;
  /** Its CPU seconds so far (user + system). */
  cpuSeconds: number;
}

/** `INFO commandstats` and `INFO cpu` of each node (`host:port`), read on a short-lived connection each. */
async function readStats(nodes: readonly string[]): Promise<Map<string, NodeReading>> {
  const readings = await Promise.all(
    nodes.map(async (node) => {
      const client = createClient({ url: `redis://${node}`, name: 'bench-orchestrator', socket: { reconnectStrategy: false, connectTimeout: 5000 } });
      client.on('error', () => undefined); // the failed command below reports it
      await client.connect();
      try {
        const commands = parseCommandStats(await client.info('commandstats'));
        return [node, { commands, cpuSeconds: parseRedisCpuSeconds(await client.info('cpu')) }] as const;
      } finally {
        client.destroy();
      }
    }),
  );
  return new Map(readings);
}

/** Rejects with `what` when `work` has not settled within `ms`. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the load on a stack over `redis` and reads every master's commands around the measured window. */
async function measureSide(ctx: PhaseContext, name: string, redis: StackRedisTarget, masters: readonly string[], queueShards: number): Promise<ShardsSide> {
  const { plan } = ctx;
  const label = redis.clusterNodes === undefined ? 'one Redis' : `cluster of ${masters.length} masters`;
  const stack = await ProductStack.start(ctx, { name, workers: ctx.results.setup.workers, redis, env: { AHP_HOOK_QUEUE_SHARDS: String(queueShards) } });
  try {
    const agents = ctx.logins.slice(0, plan.agents);
    const opened = await ctx.loadgen.open({ name: 'sdk', urls: stack.urls(), logins: agents });
    if (opened.failed > 0) throw new Error(`${opened.failed} of ${agents.length} SDK agents could not connect: ${opened.failures[0] ?? '?'}`);
    const warm = await ctx.loadgen.run('sdk', { kind: 'closed', concurrency: 8, count: plan.warmupDecisions });
    if (warm.completed === 0) throw new Error(`no warm-up decision completed (${describeErrors(warm.errorCodes)})`);
    // What each master spends with the agents connected and the workers waiting, no decision
    // running (timers, blocked reads, heartbeats): taken out of the window's CPU, it leaves what
    // the decisions cost, which is what grows with the rate.
    const idleFrom = await readStats(masters);
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, Math.min(IDLE_WINDOW_MS, plan.shardsMs)));
    const before = await readStats(masters);
    const started = performance.now();
    const idleSeconds = (started - idleStarted) / 1000;
    const run = await ctx.loadgen.run('sdk', { kind: 'closed', concurrency: plan.shardsInFlight, durationMs: plan.shardsMs });
    const after = await readStats(masters);
    const windowSeconds = (performance.now() - started) / 1000;
    if (run.completed === 0) throw new Error(`no decision completed in ${plan.shardsMs / 1000} s (${describeErrors(run.errorCodes)})`);
    const deltas = new Map<string, CommandDelta>(masters.map((node) => [node, diffCommandStats(before.get(node)?.commands ?? new Map(), after.get(node)?.commands ?? new Map())]));
    const cpuDelta = (from: Map<string, NodeReading>, to: Map<string, NodeReading>) =>
      new Map(masters.map((node) => [node, (to.get(node)?.cpuSeconds ?? Number.NaN) - (from.get(node)?.cpuSeconds ?? Number.NaN)]));
    const idleRate = new Map([...cpuDelta(idleFrom, before)].map(([node, seconds]) => [node, seconds / idleSeconds]));
    ctx.say(`${label}: ${count(throughput(run))} decisions/s`);
    return {
      redis: label,
      status: 'measured',
      decisionsPerSecond: throughput(run),
      concurrency: plan.shardsInFlight,
      spread: shardSpread(deltas, run.completed, { seconds: cpuDelta(before, after), windowSeconds, idleRate }),
      ...measured(run),
    };
  } finally {
    await within(30_000, 'closing the SDK agents', ctx.loadgen.close('sdk')).catch(() => undefined);
    await stack.stop();
  }
}

function describeErrors(codes: Record<string, number>): string {
  const entries = Object.entries(codes);
  return entries.length === 0 ? 'no error reported' : entries.map(([code, n]) => `${code}×${n}`).join(' ');
}

/** Measures one side; a side that throws or hangs is recorded as failed with its first line of error. */
async function side(ctx: PhaseContext, label: string, work: () => Promise<ShardsSide>): Promise<ShardsSide> {
  try {
    return await within(ctx.plan.shardsMs + SIDE_SLACK_MS, label, work());
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    ctx.say(`${label}: FAILED — ${message}`);
    return { redis: label, status: 'failed', error: message };
  }
}

/** `12,345 decisions/s, p50 …, 9.1 commands/decision, busiest master 1.12× an even share, 30.2 µs Redis CPU/decision (…)`. */
function sideLine(result: ShardsSide): string {
  if (result.status === 'failed') return `${result.redis}: FAILED (${result.error.split('\n')[0]})`;
  const skew = result.spread.shards.length > 1 ? `, busiest master ${result.spread.skew}× an even share` : '';
  const cpu = cpuSpreadText(result.spread);
  return `${result.redis}: ${count(result.decisionsPerSecond)} decisions/s, ${latencyLine(result)}, ${result.spread.perDecision} commands/decision${skew}${cpu ? `, ${cpu}` : ''}`;
}

export const shards: Phase = {
  key: 'shards',
  name: 'one Redis vs a cluster',
  resultPath: 'product.shards',
  describe: (plan) =>
    plan.shardsMs === 0
      ? 'skipped in this mode'
      : `${plan.shardsMs / 1000} s flat out (${plan.shardsInFlight} in flight) on one Redis, then on a ${plan.shardsMasters}-master cluster with ${plan.shardsMasters} hook queue shards`,
  async run(ctx) {
    const { plan } = ctx;
    if (plan.shardsMs === 0) {
      const reason = `${plan.mode} mode: a private cluster and two more stacks take longer than the whole run; run --quick --only shards`;
      ctx.results.product.shards = { status: 'skipped', reason };
      return `skipped (${reason})`;
    }
    await ctx.releaseProduct();
    const singleNode = new URL(ctx.redis.url).host;
    const single = await side(ctx, 'one Redis', () => measureSide(ctx, 'shards-single', { url: ctx.redis.url }, [singleNode], 1));
    const cluster = await side(ctx, `cluster of ${plan.shardsMasters} masters`, async () => {
      const started = await startRedisCluster({ masters: plan.shardsMasters });
      try {
        const masters = started.masters.map((node) => `${node.host}:${node.port}`);
        ctx.say(`cluster ${masters.join(', ')}`);
        return await measureSide(ctx, 'shards-cluster', { clusterNodes: started.nodeList }, masters, plan.shardsMasters);
      } finally {
        await started.stop();
      }
    });
    ctx.results.product.shards = { status: 'measured', masters: plan.shardsMasters, hookQueueShards: plan.shardsMasters, skewGoal: SHARD_SKEW_GOAL, single, cluster };
    const summary = `${sideLine(single)}; ${sideLine(cluster)}`;
    const failed = [single, cluster].filter((entry) => entry.status === 'failed');
    if (failed.length > 0) throw new Error(`the shards phase could not measure ${failed.map((entry) => entry.redis).join(' and ')}: ${summary}`);
    return summary;
  },
};
