/**
 * `redis` baseline: PING round trips, one at a time, on the client library the product uses.
 */
import { count } from '../report/format.js';
import { measured, type Phase } from '../orchestrator/context.js';
import { latencyLine, warmUp, warmUpCount } from './common.js';

export const redisBaseline: Phase = {
  key: 'redis',
  name: 'redis baseline',
  resultPath: 'baselines.redis',
  describe: (plan) => `${count(plan.redisPings)} PINGs one at a time`,
  async run(ctx) {
    await ctx.loadgen.open({ name: 'redis', url: ctx.redis.url });
    try {
      await warmUp(ctx, 'redis', warmUpCount(ctx.plan.redisPings));
      const run = await ctx.loadgen.run('redis', { kind: 'closed', concurrency: 1, count: ctx.plan.redisPings });
      ctx.results.baselines.redis = { roundTrip: measured(run) };
      return latencyLine(ctx.results.baselines.redis.roundTrip);
    } finally {
      await ctx.loadgen.close('redis');
    }
  },
};
