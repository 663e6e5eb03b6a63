/**
 * Worker scaling: the flat-out decision rate with 1, 2 and 4 worker processes behind one
 * gateway, and which process limits it (per-process CPU). Ends the shared product stack.
 */
import { bottleneckOf } from '../report/bottleneck.js';
import { count } from '../report/format.js';
import { measured, throughput, type Phase } from '../orchestrator/context.js';
import type { ScalingRow } from '../results.js';
import { cpuPerOperation } from '../system/cpu-meter.js';

export const workerScaling: Phase = {
  key: 'scaling',
  name: 'worker scaling',
  resultPath: 'product.scaling',
  describe: (plan) => `${plan.scalingWorkers.join(', ')} worker processes, ${plan.scalingMs / 1000} s flat out each (${plan.saturationInFlight} in flight)`,
  async run(ctx) {
    const { plan, loadgen } = ctx;
    const stack = await ctx.product();
    const rows: ScalingRow[] = [];
    try {
      for (const workers of plan.scalingWorkers) {
        await stack.setWorkers(workers);
        const { result, cpu } = await ctx.measureCpu(stack.processes(), () =>
          loadgen.run('sdk', { kind: 'closed', concurrency: plan.saturationInFlight, durationMs: plan.scalingMs }),
        );
        const row: ScalingRow = {
          workers,
          decisionsPerSecond: throughput(result),
          ...measured(result),
          cpu,
          cpuPerDecision: cpuPerOperation(cpu, result.completed),
          bottleneck: bottleneckOf(cpu, ctx.results.machine.nproc),
        };
        rows.push(row);
        ctx.say(`${workers} worker(s): ${count(row.decisionsPerSecond)}/s; ${row.bottleneck}`);
      }
    } finally {
      ctx.results.product.scaling = rows;
      await ctx.releaseProduct();
    }
    return rows.map((row) => `${row.workers}w ${count(row.decisionsPerSecond)}/s`).join(', ');
  },
};
