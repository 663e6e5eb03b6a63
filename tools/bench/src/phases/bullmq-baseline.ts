/**
 * `bullmq` baseline: a bare BullMQ round trip — the load generator adds a job, no-op worker
 * processes (the product's worker count and concurrency) XADD its completion to the producer's
 * stream, the producer's blocking XREAD sees it. One job at a time for latency, many in flight
 * for the maximum rate; Redis commands per job in both cases.
 */
import { fileURLToPath } from 'node:url';
import { spawnService, type ServiceProcess } from '@ahp/stack';
import { count } from '../report/format.js';
import { measured, throughput, type Phase } from '../orchestrator/context.js';
import { WORKER_CONCURRENCY } from '../shared/bullmq-settings.js';
import { cpuPerOperation } from '../system/cpu-meter.js';
import { latencyLine, warmUp, warmUpCount } from './common.js';

const WORKER_ENTRY = fileURLToPath(new URL('../children/bullmq-worker.js', import.meta.url));
const PREFIX = 'bench-bullmq';
const QUEUE = 'noop';
/** The producer's stream, named like a gateway's decision stream. */
const REPLY_STREAM = `${PREFIX}:gw:{bench-producer}:decisions`;

export const bullmqBaseline: Phase = {
  key: 'bullmq',
  name: 'bullmq baseline',
  resultPath: 'baselines.bullmq',
  describe: (plan) =>
    `${count(plan.bullmqRoundTrips)} jobs one at a time, then ${plan.bullmqThroughputMs / 1000} s with ${plan.bullmqInFlight} in flight, workers as the product's`,
  async run(ctx) {
    const { plan, loadgen } = ctx;
    const workers = ctx.results.setup.workers;
    const started: ServiceProcess[] = [];
    try {
      for (let index = 1; index <= workers; index += 1) {
        started.push(
          await spawnService({
            name: `bullmq-worker-${index}`,
            entry: WORKER_ENTRY,
            cwd: ctx.root,
            env: { REDIS_URL: ctx.redis.url, BENCH_QUEUE: QUEUE, BENCH_PREFIX: PREFIX, BENCH_CONCURRENCY: String(WORKER_CONCURRENCY) },
          }),
        );
      }
      await loadgen.open({ name: 'bullmq', redisUrl: ctx.redis.url, prefix: PREFIX, queue: QUEUE, replyStream: REPLY_STREAM });
      await warmUp(ctx, 'bullmq', warmUpCount(plan.bullmqRoundTrips));
      const single = await ctx.countCommands(
        () => loadgen.run('bullmq', { kind: 'closed', concurrency: 1, count: plan.bullmqRoundTrips }),
        (run) => run.completed,
      );
      const processes = started.map((worker) => ({ name: worker.name, pid: worker.pid }));
      const loaded = await ctx.countCommands(
        () => ctx.measureCpu(processes, () => loadgen.run('bullmq', { kind: 'closed', concurrency: plan.bullmqInFlight, durationMs: plan.bullmqThroughputMs })),
        ({ result }) => result.completed,
      );
      const figure = {
        roundTrip: measured(single.result),
        maxJobsPerSecond: throughput(loaded.result.result),
        workers,
        concurrencyPerWorker: WORKER_CONCURRENCY,
        commandsPerJob: single.commands,
        commandsPerJobLoaded: loaded.commands,
        cpu: loaded.result.cpu,
        cpuPerJob: cpuPerOperation(loaded.result.cpu, loaded.result.result.completed),
      };
      ctx.results.baselines.bullmq = figure;
      return `${latencyLine(figure.roundTrip)}, max ${count(figure.maxJobsPerSecond)} jobs/s (${workers}×${WORKER_CONCURRENCY}), ${figure.commandsPerJob.perOperation} Redis commands per job`;
    } finally {
      await loadgen.close('bullmq').catch(() => undefined);
      await Promise.all(started.map((worker) => worker.stop()));
    }
  },
};
