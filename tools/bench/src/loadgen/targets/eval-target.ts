/**
 * `eval` baseline: the rule engine called in-process on the benchmark events, as a worker calls
 * it for every job (the worker's default oracle budget of 2 s).
 */
import { randomUUID } from 'node:crypto';
import { loadBenchRules } from '../../shared/rule-config.js';
import { BENCH_TRIGGER, hookEvents } from '../../workload/hook-events.js';
import type { LoadTarget } from './target.js';

const AGENT = { id: 'bench-eval', name: 'Benchmark agent' };
const EVENTS = hookEvents(2000);

export async function openEvalTarget(workspaceRoot: string): Promise<LoadTarget> {
  const rules = await loadBenchRules(workspaceRoot);
  const clock = { now: () => new Date(), newId: randomUUID, budgetMs: 2000 };
  return {
    report: { connections: 0, failed: 0, failures: [], note: rules.description },
    op: (index) =>
      rules.evaluate(
        { hookId: randomUUID(), trigger: BENCH_TRIGGER, context: (EVENTS[index % EVENTS.length] as (typeof EVENTS)[number]).context, agent: AGENT, sessionId: `bench-session-${index % 64}` },
        clock,
      ),
    close: async () => undefined,
  };
}
