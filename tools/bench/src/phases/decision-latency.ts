/**
 * The product's decision round trip at low load: SDK `hook()` → gateway → Redis → worker →
 * Redis → gateway → SDK, one hook at a time, and the Redis commands each decision costs.
 */
import { count } from '../report/format.js';
import { measured, type Phase } from '../orchestrator/context.js';
import { latencyLine } from './common.js';

export const decisionLatency: Phase = {
  key: 'decision',
  name: 'decision latency',
  resultPath: 'product.decision',
  describe: (plan) => `start the stack, ${count(plan.warmupDecisions)} warm-up hooks, then ${count(plan.lowLoadDecisions)} hooks one at a time`,
  async run(ctx) {
    const { plan, loadgen } = ctx;
    await ctx.product();
    await loadgen.run('sdk', { kind: 'closed', concurrency: 8, count: plan.warmupDecisions });
    const { result, commands } = await ctx.countCommands(
      () => loadgen.run('sdk', { kind: 'closed', concurrency: 1, count: plan.lowLoadDecisions }),
      (run) => run.completed,
    );
    ctx.results.product.decision = { roundTrip: measured(result), commandsPerDecision: commands };
    return `${latencyLine(ctx.results.product.decision.roundTrip, true)}, ${commands.perOperation} Redis commands per decision`;
  },
};
