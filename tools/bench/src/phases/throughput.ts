/**
 * The product's throughput: the closed-loop saturation rate (what it does flat out), then an
 * open-loop search for the highest fixed arrival rate it sustains with p99 ≤ 50 ms and no
 * errors, then a run at half that rate for the tail latency and the Redis cost under load.
 */
import { highestPassing, nextRate, type RateStep } from '../load/rate-search.js';
import { count, ms } from '../report/format.js';
import { measured, throughput as rateOf, type Phase, type PhaseContext } from '../orchestrator/context.js';
import type { RateStepResult } from '../results.js';
import { cpuPerOperation } from '../system/cpu-meter.js';
import { latencyLine } from './common.js';

/** The service level a sustained rate must keep. */
export const SUSTAINED_P99_LIMIT_MS = 50;

/** How long a step waits for decisions still outstanding after its last send, ms. */
const STEP_DRAIN_MS = 5000;

/**
 * Between steps: decisions a step gave up on are waited for (up to the SDK's own deadline), then
 * a short pause, so one step's backlog does not spill into the next one's figures, ms.
 */
const BACKLOG_WAIT_MS = 30_000;
const SETTLE_MS = 500;

async function settle(ctx: PhaseContext): Promise<void> {
  const left = await ctx.loadgen.idle('sdk', BACKLOG_WAIT_MS);
  if (left > 0) ctx.say(`${left} decisions still outstanding after ${BACKLOG_WAIT_MS / 1000} s; going on`);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}

async function runStep(ctx: PhaseContext, rate: number, durationMs: number): Promise<RateStepResult> {
  const stack = await ctx.product();
  const { result, cpu } = await ctx.measureCpu(stack.processes(), () =>
    ctx.loadgen.run('sdk', { kind: 'open', rate, durationMs, drainMs: STEP_DRAIN_MS }),
  );
  const figure = measured(result);
  await settle(ctx);
  return {
    rate,
    ...figure,
    achievedRate: rateOf(result),
    passed: figure.errors === 0 && figure.latency.p99 <= SUSTAINED_P99_LIMIT_MS,
    maxStartLagMs: Math.round((result.maxStartLagMs ?? 0) * 10) / 10,
    cpu,
  };
}

export const productThroughput: Phase = {
  key: 'throughput',
  name: 'decision throughput',
  resultPath: 'product.saturation, product.rateSteps, product.maxSustainedPerSecond, product.halfLoad',
  describe: (plan) =>
    `${plan.saturationMs / 1000} s flat out (${plan.saturationInFlight} in flight), then open-loop steps of ${plan.stepMs / 1000} s up to p99 > ${SUSTAINED_P99_LIMIT_MS} ms, then ${plan.halfLoadMs / 1000} s at half the best rate`,
  async run(ctx) {
    const { plan, loadgen, results } = ctx;
    const stack = await ctx.product();

    const saturation = await ctx.measureCpu(stack.processes(), () =>
      loadgen.run('sdk', { kind: 'closed', concurrency: plan.saturationInFlight, durationMs: plan.saturationMs }),
    );
    const saturated = rateOf(saturation.result);
    results.product.saturation = {
      decisionsPerSecond: saturated,
      concurrency: plan.saturationInFlight,
      cpu: saturation.cpu,
      cpuPerDecision: cpuPerOperation(saturation.cpu, saturation.result.completed),
      ...measured(saturation.result),
    };
    ctx.say(`flat out: ${count(saturated)} decisions/s (${latencyLine(results.product.saturation)})`);
    await settle(ctx);

    const steps: RateStepResult[] = [];
    const history: RateStep[] = [];
    const search = { startRate: Math.max(10, saturated * 0.5), growth: 1.2, maxSteps: plan.maxSteps };
    for (let rate = nextRate(history, search); rate !== undefined; rate = nextRate(history, search)) {
      const step = await runStep(ctx, rate, plan.stepMs);
      steps.push(step);
      history.push({ rate, passed: step.passed });
      ctx.say(`${count(rate)}/s: ${step.passed ? 'ok  ' : 'FAIL'} ${latencyLine(step)}, completed ${count(step.achievedRate)}/s, send lag ≤ ${ms(step.maxStartLagMs)}`);
    }
    results.product.rateSteps = steps;
    const best = highestPassing(history) ?? null;
    results.product.maxSustainedPerSecond = best;

    // Half of the sustained rate; when no step passed, half of the flat-out rate, so the figure
    // still exists (the target built on it says what it is measured against).
    const halfRate = Math.max(10, Math.round(((best ?? saturated) * 0.5) / 10) * 10);
    const half = await ctx.countCommands(
      () => ctx.measureCpu(stack.processes(), () => loadgen.run('sdk', { kind: 'open', rate: halfRate, durationMs: plan.halfLoadMs, drainMs: STEP_DRAIN_MS })),
      ({ result }) => result.completed,
    );
    results.product.halfLoad = {
      rate: halfRate,
      ...measured(half.result.result),
      commandsPerDecision: half.commands,
      cpu: half.result.cpu,
      maxStartLagMs: Math.round((half.result.result.maxStartLagMs ?? 0) * 10) / 10,
    };
    return `max sustained ${best === null ? 'none' : `${count(best)}/s`} (flat out ${count(saturated)}/s); at ${count(halfRate)}/s: ${latencyLine(results.product.halfLoad, true)}`;
  },
};
