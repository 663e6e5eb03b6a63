/**
 * `eval` baseline: the rule engine called in-process, one evaluation at a time.
 */
import { count } from '../report/format.js';
import { measured, throughput, type Phase } from '../orchestrator/context.js';
import { latencyLine, warmUp, warmUpCount } from './common.js';

export const evalBaseline: Phase = {
  key: 'eval',
  name: 'eval baseline',
  resultPath: 'baselines.eval',
  describe: (plan) => `${count(plan.evalRuns)} evaluateHook calls one at a time`,
  async run(ctx) {
    const { loadgen } = ctx;
    const opened = await loadgen.open({ name: 'eval', workspaceRoot: ctx.root });
    try {
      const rules = opened.note ?? 'unknown';
      ctx.say(`rules: ${rules}`);
      await warmUp(ctx, 'eval', warmUpCount(ctx.plan.evalRuns) * 4);
      const run = await loadgen.run('eval', { kind: 'closed', concurrency: 1, count: ctx.plan.evalRuns });
      ctx.results.baselines.eval = { call: measured(run), callsPerSecond: throughput(run), rules };
      return `${latencyLine(ctx.results.baselines.eval.call)}, ${count(ctx.results.baselines.eval.callsPerSecond)} calls/s on one core`;
    } finally {
      await loadgen.close('eval');
    }
  },
};
