/**
 * What BullMQ's lock and stall settings cost and what they buy, measured on the real processes:
 * - cost: Redis commands per second (and Redis CPU) of an idle stack, and with jobs active
 *   (their locks are renewed every lock/2), from INFO commandstats;
 * - benefit: takeover time — from SIGKILL of a worker mid-job until each of its jobs starts again
 *   on another worker (lock expiry plus the next stalled-jobs check).
 * Each profile gets its own gateway and two workers over one private Redis.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { provideRedis, withRedisConnection, type RedisHandle } from '@ahp/embedded-redis';
import { connect, type AhpClient } from '@ahp/sdk';
import { mintCredentials, startStack, writeTokensFile, type ServiceProcess, type Stack } from '@ahp/stack';
import { EvaluationLog } from './evaluation-log.js';
import type { BullmqSettings } from './options.js';
import { CHAOS_ORACLE_PLUGIN } from './run-chaos.js';
import { distribution, type Distribution } from './stats.js';
import { chaosContext } from './workload.js';

/** One lock/stall setting to measure. */
export type CostProfile = Pick<BullmqSettings, 'lockMs' | 'stalledIntervalMs'>;

/** BullMQ's own defaults, the product's defaults, and three shorter settings. */
export const DEFAULT_COST_PROFILES: readonly CostProfile[] = Object.freeze([
  { lockMs: 30_000, stalledIntervalMs: 30_000 },
  { lockMs: 10_000, stalledIntervalMs: 5_000 },
  { lockMs: 4_000, stalledIntervalMs: 2_000 },
  { lockMs: 2_000, stalledIntervalMs: 1_000 },
  { lockMs: 1_000, stalledIntervalMs: 500 },
]);

/** `30000/30000,2000/1000` as profiles. */
export function parseProfiles(text: string): CostProfile[] {
  return text.split(',').map((item) => {
    const match = /^\s*(\d+)\/(\d+)\s*$/.exec(item);
    if (match === null) throw new TypeError(`not a lock/stalled pair: ${JSON.stringify(item)} (use e.g. 4000/2000)`);
    return { lockMs: Number(match[1]), stalledIntervalMs: Number(match[2]) };
  });
}

/** Calls and microseconds of one command since the last CONFIG RESETSTAT. */
export interface CommandStat {
  readonly calls: number;
  readonly usec: number;
}

/** Parses the `commandstats` section of INFO (`cmdstat_get:calls=2,usec=5,…`). */
export function parseCommandStats(info: string): Map<string, CommandStat> {
  const stats = new Map<string, CommandStat>();
  for (const line of info.split(/\r?\n/)) {
    const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (match?.[1] !== undefined) stats.set(match[1], { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return stats;
}

/** Redis load over one measurement window. */
export interface RedisLoad {
  readonly commandsPerSec: number;
  /** Milliseconds of Redis CPU per second spent executing commands. */
  readonly redisCpuMsPerSec: number;
  /** The busiest commands, calls per second. */
  readonly top: readonly { readonly command: string; readonly perSec: number }[];
}

/** Rates from commandstats gathered over `windowMs`. The INFO and RESETSTAT calls of the measurement are left out. */
export function loadOf(stats: Map<string, CommandStat>, windowMs: number): RedisLoad {
  const seconds = windowMs / 1000;
  const measured = [...stats].filter(([command]) => !['info', 'config|resetstat'].includes(command));
  const calls = measured.reduce((sum, [, stat]) => sum + stat.calls, 0);
  const usec = measured.reduce((sum, [, stat]) => sum + stat.usec, 0);
  const round = (value: number): number => Math.round(value * 100) / 100;
  return {
    commandsPerSec: round(calls / seconds),
    redisCpuMsPerSec: round(usec / 1000 / seconds),
    top: measured
      .sort((a, b) => b[1].calls - a[1].calls)
      .slice(0, 6)
      .map(([command, stat]) => ({ command, perSec: round(stat.calls / seconds) })),
  };
}

/** The figures of one profile. */
export interface CostMeasurement {
  readonly profile: CostProfile;
  /** One gateway and two workers, no hook in flight. */
  readonly idle: RedisLoad;
  /** The same with `jobs` evaluations in progress. */
  readonly active: RedisLoad;
  readonly jobs: number;
  /** SIGKILL of a worker to the restart of each of its jobs elsewhere. */
  readonly takeoverMs: Distribution;
  /** Jobs of the killed worker that did not start again before the measurement gave up. */
  readonly notTakenOver: number;
}

/** Everything `ahp-chaos cost` measured. */
export interface CostReport {
  readonly windowMs: number;
  readonly measurements: readonly CostMeasurement[];
}

/** Options of {@link measureCost}. */
export interface MeasureCostOptions {
  readonly profiles: readonly CostProfile[];
  /** Length of the idle and the active window. */
  readonly windowMs: number;
  /** Evaluations kept in progress during the active window. */
  readonly jobs: number;
  readonly log?: (line: string) => void;
}

async function sample(redis: RedisHandle, windowMs: number): Promise<RedisLoad> {
  // One connection each side of the window: an idle connection would be closed after its idle timeout.
  await withRedisConnection({ url: redis.url }, (client) => client.configResetStat());
  await sleep(windowMs);
  const info = await withRedisConnection({ url: redis.url }, (client) => client.info('commandstats'));
  return loadOf(parseCommandStats(info), windowMs);
}

/** Polls `probe` every 100 ms until it returns true or `timeoutMs` passed. */
async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe()) return true;
    await sleep(100);
  }
  return probe();
}

async function measureProfile(
  profile: CostProfile,
  index: number,
  env: { redis: RedisHandle; work: string; tokensFile: string; token: string },
  options: MeasureCostOptions,
): Promise<CostMeasurement> {
  const log = options.log ?? (() => undefined);
  const evaluationsDir = join(env.work, `evaluations-${index}`);
  // Long enough to stay active through the active window and the takeover that follows.
  const slowMs = options.windowMs + profile.lockMs + 2 * profile.stalledIntervalMs + 30_000;
  const deadlineMs = slowMs + 60_000;
  let stack: Stack | undefined;
  let client: AhpClient | undefined;
  try {
    stack = await startStack({
      redisUrl: env.redis.url,
      tokensFile: env.tokensFile,
      gateways: 1,
      workers: 2,
      keyPrefix: `ahp-cost-${index}`,
      gatewayEnv: { HOST: '127.0.0.1', AHP_HOOK_DEADLINE_MS: String(deadlineMs), AHP_LOG_LEVEL: 'warn' },
      workerEnv: {
        AHP_WORKER_LOCK_MS: String(profile.lockMs),
        AHP_WORKER_STALLED_INTERVAL_MS: String(profile.stalledIntervalMs),
        AHP_ORACLE_PLUGINS: CHAOS_ORACLE_PLUGIN,
        AHP_ORACLE_BUDGET_MS: String(deadlineMs),
        AHP_CHAOS_EVALUATIONS_DIR: evaluationsDir,
        AHP_LOG_LEVEL: 'warn',
      },
    });
    client = await connect({ url: stack.gatewayUrls(), token: env.token, hookDeadlineMs: deadlineMs });
    await sleep(2_000); // let start-up traffic pass
    log(`lock ${profile.lockMs} ms / stalled check ${profile.stalledIntervalMs} ms: idle window`);
    const idle = await sample(env.redis, options.windowMs);

    const evaluations = new EvaluationLog(evaluationsDir);
    for (let seq = 1; seq <= options.jobs; seq++) {
      client.hook('pre-tool-use', chaosContext({ agent: 'cost', seq, slow_ms: slowMs })).catch(() => undefined);
    }
    const started = await until(async () => {
      await evaluations.refresh();
      return evaluations.all().length >= options.jobs;
    }, 20_000);
    if (!started) throw new Error(`only ${evaluations.all().length} of ${options.jobs} jobs started`);
    log(`lock ${profile.lockMs} ms / stalled check ${profile.stalledIntervalMs} ms: active window (${options.jobs} jobs)`);
    const active = await sample(env.redis, options.windowMs);

    const { takeovers, missing } = await measureTakeover(stack.workers, evaluations, profile);
    log(`lock ${profile.lockMs} ms / stalled check ${profile.stalledIntervalMs} ms: takeover ${takeovers.join(', ')} ms`);
    return { profile, idle, active, jobs: options.jobs, takeoverMs: distribution(takeovers), notTakenOver: missing };
  } finally {
    await client?.close();
    // The workers hold jobs that run for minutes; a graceful stop would wait for them.
    for (const worker of stack?.workers ?? []) worker.kill('SIGKILL');
    await stack?.stop();
  }
}

/** Kills the busiest worker and waits until each of its jobs started again on another one. */
async function measureTakeover(
  workers: readonly ServiceProcess[],
  evaluations: EvaluationLog,
  profile: CostProfile,
): Promise<{ takeovers: number[]; missing: number }> {
  await evaluations.refresh();
  const busiest = [...workers].sort((a, b) => evaluations.byPid(b.pid).length - evaluations.byPid(a.pid).length)[0];
  if (busiest === undefined) throw new Error('no worker to kill');
  const hooks = new Set(evaluations.byPid(busiest.pid).map((evaluation) => evaluation.hookId));
  const killedAt = Date.now();
  busiest.kill('SIGKILL');
  await busiest.exited;
  const restarted = (): number[] =>
    evaluations
      .all()
      .filter((evaluation) => evaluation.pid !== busiest.pid && evaluation.at >= killedAt && hooks.has(evaluation.hookId))
      .map((evaluation) => evaluation.at - killedAt);
  await until(async () => {
    await evaluations.refresh();
    return restarted().length >= hooks.size;
  }, profile.lockMs + 2 * profile.stalledIntervalMs + 15_000);
  const takeovers = restarted();
  return { takeovers, missing: hooks.size - takeovers.length };
}

/** Measures every profile in turn; see the module comment. */
export async function measureCost(options: MeasureCostOptions): Promise<CostReport> {
  const work = await mkdtemp(join(tmpdir(), 'ahp-chaos-cost-'));
  let redis: RedisHandle | undefined;
  try {
    redis = await provideRedis({ mode: 'ephemeral' });
    const [credential] = mintCredentials([{ id: 'cost-agent', name: 'Cost measurement' }]);
    if (credential === undefined) throw new Error('no credential minted');
    const tokensFile = join(work, 'agent-tokens.json');
    await writeTokensFile(tokensFile, [credential]);
    const measurements: CostMeasurement[] = [];
    for (const [index, profile] of options.profiles.entries()) {
      measurements.push(await measureProfile(profile, index, { redis, work, tokensFile, token: credential.token }, options));
    }
    return { windowMs: options.windowMs, measurements };
  } finally {
    await redis?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/** The table `ahp-chaos cost` prints. */
export function formatCostReport(report: CostReport): string {
  const header =
    `${'lock/stalled ms'.padEnd(16)}${'idle cmd/s'.padStart(11)}${'active cmd/s'.padStart(13)}${'per job'.padStart(9)}` +
    `${'Redis CPU ms/s'.padStart(16)}   takeover ms min / p50 / max`;
  const rows = report.measurements.map((m) => {
    const name = `${m.profile.lockMs}/${m.profile.stalledIntervalMs}`;
    const perJob = Math.round(((m.active.commandsPerSec - m.idle.commandsPerSec) / m.jobs) * 100) / 100;
    const takeover = `${m.takeoverMs.min} / ${m.takeoverMs.p50} / ${m.takeoverMs.max}${m.notTakenOver > 0 ? ` (${m.notTakenOver} not taken over)` : ''}`;
    return (
      `${name.padEnd(16)}${String(m.idle.commandsPerSec).padStart(11)}${String(m.active.commandsPerSec).padStart(13)}${String(perJob).padStart(9)}` +
      `${`${m.idle.redisCpuMsPerSec} → ${m.active.redisCpuMsPerSec}`.padStart(16)}   ${takeover}`
    );
  });
  return [
    `Redis load of 1 gateway + 2 workers (windows of ${report.windowMs / 1000} s; Lua scripts' inner commands included), and worker takeover after SIGKILL`,
    header,
    ...rows,
  ].join('\n');
}
