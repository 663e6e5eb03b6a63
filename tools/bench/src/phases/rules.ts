/**
 * `rules`: what a growing policy costs the rule engine. The example configuration plus +0, +100,
 * +1 000 and +10 000 generated rules (shared/generated-rules.ts), each compiled (timed) and then
 * evaluated in-process over the benchmark workload, one hook at a time; at +1 000 also with the
 * rule index off (every rule evaluated in turn), the same-run reference the index is judged by.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileHooksConfig, createMemoryRuleCounters, parseHooksConfig } from '@ahp/oracles';
import type { CompiledHooks } from '@ahp/oracles';
import type { HookDecision } from '@ahp/protocol';
import type { Phase } from '../orchestrator/context.js';
import type { RulesStep } from '../results.js';
import { summarize } from '../stats/latency.js';
import { HOOKS_CONFIG_PATH } from '../shared/rule-config.js';
import { withGeneratedRules } from '../shared/generated-rules.js';
import { BENCH_TRIGGER, hookEvent } from '../workload/hook-events.js';

/** Generated rules added in each step. */
export const RULE_STEPS = [0, 100, 1000, 10_000] as const;

async function measure(compiled: CompiledHooks, runs: number): Promise<{ samples: Float64Array; decisions: HookDecision[] }> {
  const counters = createMemoryRuleCounters();
  const samples = new Float64Array(runs);
  const decisions: HookDecision[] = [];
  let id = 0;
  const newId = () => `00000000-0000-4000-8000-${(++id).toString(16).padStart(12, '0')}`;
  const now = () => new Date();
  for (let i = 0; i < runs; i += 1) {
    const event = hookEvent(i);
    const input = {
      hookId: newId(),
      trigger: BENCH_TRIGGER,
      context: event.context,
      agent: { id: `bench-agent-${i % 16}`, name: 'bench' },
      sessionId: `bench-session-${i}`,
    } as const;
    const started = process.hrtime.bigint();
    const decision = await compiled.evaluate(input, { now, newId, counters, budgetMs: 2000 });
    samples[i] = Number(process.hrtime.bigint() - started) / 1e6;
    if (i < 40) decisions.push(decision);
  }
  return { samples, decisions };
}

export const rulesPhase: Phase = {
  key: 'rules',
  name: 'rules scaling',
  resultPath: 'baselines.rules',
  describe: (plan) => `${HOOKS_CONFIG_PATH} + ${RULE_STEPS.join(' / ')} generated rules, ${plan.rulesRuns} evaluations each`,
  async run(ctx) {
    const source = await readFile(join(ctx.root, HOOKS_CONFIG_PATH), 'utf8');
    const parsed = parseHooksConfig(source);
    if (!parsed.ok) throw new Error(`${HOOKS_CONFIG_PATH} does not parse: ${parsed.issues[0]?.message ?? ''}`);
    const steps: RulesStep[] = [];
    let reference: HookDecision[] | undefined;
    const variants = [...RULE_STEPS.map((rules) => ({ rules, indexed: true })), { rules: 1000, indexed: false }];
    for (const { rules, indexed } of variants) {
      const config = withGeneratedRules(parsed.config, rules);
      const started = process.hrtime.bigint();
      const compiled = compileHooksConfig(config, { version: 1, indexRules: indexed });
      const compileMs = Number(process.hrtime.bigint() - started) / 1e6;
      await measure(compiled, Math.min(500, ctx.plan.rulesRuns)); // warm-up (JIT), not reported
      const { samples, decisions } = await measure(compiled, ctx.plan.rulesRuns);
      // The generated rules never fire on the workload: every step must decide as +0 did.
      const outcome = decisions.map((d) => `${d.intensity ?? 'allow'}:${d.signals.map((s) => s.header.source).join(',')}`);
      if (reference === undefined) reference = decisions;
      const expected = reference.map((d) => `${d.intensity ?? 'allow'}:${d.signals.map((s) => s.header.source).join(',')}`);
      if (outcome.join('|') !== expected.join('|')) throw new Error(`+${rules} rules (indexed: ${indexed}) decided differently from +0`);
      const latency = summarize(samples);
      steps.push({ rules, indexed, compileMs: Math.round(compileMs * 10) / 10, latency });
      ctx.say(`+${rules} rules${indexed ? '' : ' (index off)'}: compile ${compileMs.toFixed(1)} ms, eval p50 ${latency.p50.toFixed(3)} ms, p99 ${latency.p99.toFixed(3)} ms`);
    }
    ctx.results.baselines.rules = { runs: ctx.plan.rulesRuns, steps };
    const at1000 = steps.find((step) => step.rules === 1000 && step.indexed);
    return at1000 === undefined ? 'no +1000 step' : `+1000 rules: p50 ${at1000.latency.p50.toFixed(3)} ms, p99 ${at1000.latency.p99.toFixed(3)} ms (goal ≤ 0.3 / ≤ 1 ms)`;
  },
};
