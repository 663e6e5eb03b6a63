/**
 * `spawn` baseline: a command hook as a fresh Node process per event, one at a time.
 */
import { fileURLToPath } from 'node:url';
import { count } from '../report/format.js';
import { measured, type Phase } from '../orchestrator/context.js';
import { latencyLine, warmUp } from './common.js';

const HOOK_SCRIPT = fileURLToPath(new URL('../children/command-hook.js', import.meta.url));

export const spawnBaseline: Phase = {
  key: 'spawn',
  name: 'spawn baseline',
  resultPath: 'baselines.spawn',
  describe: (plan) => `${count(plan.spawnRuns)} × node command-hook.js < event.json`,
  async run(ctx) {
    const { loadgen } = ctx;
    await loadgen.open({ name: 'spawn', script: HOOK_SCRIPT });
    try {
      // The first start also warms the page cache for node itself.
      await warmUp(ctx, 'spawn', 2);
      const { result, cpu } = await ctx.measureCpu([], () => loadgen.run('spawn', { kind: 'closed', concurrency: 1, count: ctx.plan.spawnRuns }));
      ctx.results.baselines.spawn = { roundTrip: measured(result), cpu };
      return latencyLine(ctx.results.baselines.spawn.roundTrip);
    } finally {
      await loadgen.close('spawn');
    }
  },
};
