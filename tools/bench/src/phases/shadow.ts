/**
 * `shadow`: what a shadow configuration (docs/hooks.md, "Shadow a configuration") costs. On the
 * shared product stack, in alternating windows (without, with, without, with) so drift on the
 * shared machine hits both sides alike:
 *
 * - decision p50/p99, one hook at a time (the shadow runs after the decision, so it should not show);
 * - CPU per decision of every process, 8 hooks in flight, the window held open until the workers
 *   have recorded every shadow evaluation of it (the shadow's work is counted, not left outside).
 *
 * The shadow is the live configuration plus a comment: a different text, the same rules, so it
 * costs what the live evaluation costs, plus the comparison and its one Redis script per hook.
 */
import { connectRedis, createKeys, createShadowConfigStore, type RedisClient, type ShadowConfigStore } from '@ahp/store';
import type { LoadRun } from '../load/drivers.js';
import { measured, type Phase, type PhaseContext } from '../orchestrator/context.js';
import { ms } from '../report/format.js';
import type { ShadowCostSide } from '../results.js';
import { summarize } from '../stats/latency.js';
import { cpuPerOperation } from '../system/cpu-meter.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
/** Hooks in flight in the CPU windows. */
const LOADED_IN_FLIGHT = 8;

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

interface Window {
  latency: LoadRun;
  loaded: LoadRun;
  cpuMs: number;
  perProcess: { name: string; ms: number }[];
}

async function window(ctx: PhaseContext, count: number, shadow: { store: ShadowConfigStore; number: number; expected: () => number } | undefined): Promise<Window> {
  const stack = await ctx.product();
  const latency = await ctx.loadgen.run('sdk', { kind: 'closed', concurrency: 1, count });
  const { result: loaded, cpu } = await ctx.measureCpu(stack.processes(), async () => {
    const run = await ctx.loadgen.run('sdk', { kind: 'closed', concurrency: LOADED_IN_FLIGHT, count });
    // Hold the window open until the workers recorded every shadow evaluation of the run.
    if (shadow !== undefined && !(await waitFor(async () => (await shadow.store.stats(shadow.number)).evaluated >= shadow.expected(), 15_000))) {
      ctx.say(`shadow: ${(await shadow.store.stats(shadow.number)).evaluated} of ${shadow.expected()} hooks recorded after 15 s (the rest were shed or are still running)`);
    }
    return run;
  });
  const perOp = cpuPerOperation(cpu, loaded.completed);
  return { latency, loaded, cpuMs: perOp.totalMs, perProcess: perOp.processes };
}

function side(windows: readonly Window[]): ShadowCostSide {
  const merged = windows.flatMap((w) => [...w.latency.samples]);
  const cpu = windows.reduce((sum, w) => sum + w.cpuMs, 0) / windows.length;
  const processes = new Map<string, number>();
  for (const w of windows) for (const p of w.perProcess) processes.set(p.name, (processes.get(p.name) ?? 0) + p.ms / windows.length);
  return {
    decision: {
      latency: summarize(merged),
      errors: windows.reduce((sum, w) => sum + w.latency.errors + w.loaded.errors, 0),
      errorCodes: Object.assign({}, ...windows.flatMap((w) => [measured(w.latency).errorCodes, measured(w.loaded).errorCodes])) as Record<string, number>,
    },
    cpuPerDecisionMs: Math.round(cpu * 1000) / 1000,
    cpuPerDecisionByProcess: [...processes].map(([name, value]) => ({ name, ms: Math.round(value * 1000) / 1000 })).sort((a, b) => b.ms - a.ms),
    windows: windows.map((w) => ({ p50: Math.round(summarize(w.latency.samples).p50 * 1000) / 1000, cpuMs: w.cpuMs })),
  };
}

export const shadowPhase: Phase = {
  key: 'shadow',
  name: 'shadow cost',
  resultPath: 'product.shadow',
  describe: (plan) => `4 alternating windows (no shadow / shadow) of ${plan.lowLoadDecisions} hooks one at a time + ${plan.lowLoadDecisions} with ${LOADED_IN_FLIGHT} in flight`,
  async run(ctx) {
    const config = ctx.rules.config;
    if (config === undefined) return 'skipped: no hooks configuration is published, so there is nothing to shadow';
    const stack = await ctx.product();
    const redis: RedisClient = await connectRedis({ url: ctx.redis.url, name: 'bench-shadow', logger: silent });
    try {
      const store = createShadowConfigStore({ redis, keys: createKeys({ prefix: stack.keyPrefix }) });
      const count = ctx.plan.lowLoadDecisions;
      await ctx.loadgen.run('sdk', { kind: 'closed', concurrency: LOADED_IN_FLIGHT, count: ctx.plan.warmupDecisions });
      const without: Window[] = [];
      const withShadow: Window[] = [];
      for (let round = 0; round < 2; round += 1) {
        without.push(await window(ctx, count, undefined));
        const { shadow } = await store.set({ source: `${config.source}\n# shadow for the bench, round ${round}\n`, config: config.parsed, publishedBy: 'ahp-bench', now: Date.now(), liveVersion: null });
        // Every hook after the workers loaded it is shadowed: probe until one is recorded, then count from there.
        const loadedByWorkers = await waitFor(async () => {
          await ctx.loadgen.run('sdk', { kind: 'closed', concurrency: stack.workerCount * 2, count: stack.workerCount * 4 });
          return (await store.stats(shadow)).evaluated >= stack.workerCount * 4;
        }, 15_000);
        if (!loadedByWorkers) throw new Error(`the workers did not start evaluating shadow ${shadow} within 15 s`);
        const base = (await store.stats(shadow)).evaluated;
        withShadow.push(await window(ctx, count, { store, number: shadow, expected: () => base + 2 * count }));
        const stats = await store.stats(shadow);
        if (stats.disagreements > 0 || stats.errors > 0) ctx.say(`shadow ${shadow}: ${stats.disagreements} disagreements, ${stats.errors} errors (expected none: same rules)`);
        await store.drop(shadow);
      }
      const off = side(without);
      const on = side(withShadow);
      ctx.results.product.shadow = { decisionsPerWindow: count, loadedInFlight: LOADED_IN_FLIGHT, without: off, with: on };
      ctx.say(`without: p50 ${ms(off.decision.latency.p50)}, CPU ${off.cpuPerDecisionMs} ms/decision (${off.cpuPerDecisionByProcess.map((p) => `${p.name} ${p.ms}`).join(', ')})`);
      ctx.say(`with:    p50 ${ms(on.decision.latency.p50)}, CPU ${on.cpuPerDecisionMs} ms/decision (${on.cpuPerDecisionByProcess.map((p) => `${p.name} ${p.ms}`).join(', ')})`);
      return `decision p50 ${ms(off.decision.latency.p50)} → ${ms(on.decision.latency.p50)}, p99 ${ms(off.decision.latency.p99)} → ${ms(on.decision.latency.p99)}; CPU per decision ${off.cpuPerDecisionMs} → ${on.cpuPerDecisionMs} ms`;
    } finally {
      await redis.close();
    }
  },
};
