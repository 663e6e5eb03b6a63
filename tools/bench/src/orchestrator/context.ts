/**
 * What every phase gets: the plan, the run's Redis and load generator, the agents, the results
 * being filled in, and a few measuring helpers.
 */
import type { RedisHandle } from '@ahp/embedded-redis';
import { createClient, type RedisClientType } from 'redis';
import type { LoadRun } from '../load/drivers.js';
import type { AgentLogin } from '../loadgen/protocol.js';
import type { BenchPlan } from '../plan.js';
import { diffCommandStats, parseCommandStats, perOperation, type CommandsPerOperation } from '../redis/commandstats.js';
import type { BenchResults, Measured } from '../results.js';
import type { BenchRules } from '../shared/rule-config.js';
import { summarize } from '../stats/latency.js';
import { startCpuWindow, type CpuWindow, type WatchedProcess } from '../system/cpu-meter.js';
import type { LoadGenerator } from './loadgen-client.js';
import type { ProductStack } from './product-stack.js';

export interface PhaseContext {
  readonly plan: BenchPlan;
  /** The workspace root. */
  readonly root: string;
  /** This run's scratch folder: tokens file, service logs, profiles. */
  readonly runDir: string;
  readonly redis: RedisHandle;
  readonly loadgen: LoadGenerator;
  /** Every agent minted for the run, in order; phases take disjoint slices. */
  readonly logins: readonly AgentLogin[];
  /** The gateways' tokens file (digests of `logins`). */
  readonly tokensFile: string;
  readonly results: BenchResults;
  /** The rules the product and the eval baseline evaluate with. */
  readonly rules: BenchRules;
  /** Prints a detail line under the current phase. */
  say(line: string): void;
  /** Processes every window watches besides the phase's own: Redis, the load generator, this process. */
  baseProcesses(): WatchedProcess[];
  /** Redis commands run while `body` runs, per operation it reports. */
  countCommands<T>(body: () => Promise<T>, operations: (result: T) => number): Promise<{ result: T; commands: CommandsPerOperation }>;
  /** CPU of `processes` (plus the base ones) while `body` runs. */
  measureCpu<T>(processes: readonly WatchedProcess[], body: () => Promise<T>): Promise<{ result: T; cpu: CpuWindow }>;
  /**
   * The product stack the product phases share (1 gateway, the plan's workers), started on first
   * use with the load generator's SDK agents connected to it.
   */
  product(): Promise<ProductStack>;
  /** Stops the shared product stack, if it runs, so later phases have the machine to themselves. */
  releaseProduct(): Promise<void>;
}

/** A step of the run. */
export interface Phase {
  /** Key for `--only`: `bullmq`. */
  key: string;
  /** Short name for the progress line: `bullmq baseline`. */
  name: string;
  /** What it will do under this plan: `600 jobs one at a time, then 2.5 s at 256 in flight`. */
  describe(plan: BenchPlan): string;
  /** Where its figures land in the results file (a JSON path). */
  resultPath: string;
  /** Runs it and returns a one-line summary of what it found. */
  run(ctx: PhaseContext): Promise<string>;
}

/** A latency figure from a run. */
export function measured(run: LoadRun): Measured {
  return { latency: summarize(run.samples), errors: run.errors, errorCodes: run.errorCodes };
}

/** Completed operations per second of a run. */
export function throughput(run: LoadRun): number {
  return run.elapsedMs > 0 ? Math.round((run.completed / run.elapsedMs) * 1000) : 0;
}

/** The Redis connection the orchestrator reads `INFO commandstats` on. */
export async function connectStatsClient(url: string): Promise<RedisClientType> {
  const client: RedisClientType = createClient({ url, name: 'bench-orchestrator' });
  client.on('error', () => undefined); // a failed INFO fails the phase that asked for it
  await client.connect();
  return client;
}

/** Builds the measuring helpers of a context around the stats client. */
export function measuringHelpers(
  stats: RedisClientType,
  baseProcesses: () => WatchedProcess[],
): Pick<PhaseContext, 'countCommands' | 'measureCpu'> {
  return {
    async countCommands(body, operations) {
      const before = parseCommandStats(await stats.info('commandstats'));
      const result = await body();
      const after = parseCommandStats(await stats.info('commandstats'));
      const count = operations(result);
      const delta = diffCommandStats(before, after);
      return { result, commands: perOperation(delta, Math.max(1, count)) };
    },
    async measureCpu(processes, body) {
      const stop = startCpuWindow([...baseProcesses(), ...processes]);
      const result = await body();
      return { result, cpu: stop() };
    },
  };
}
