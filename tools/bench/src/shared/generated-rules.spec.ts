import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileHooksConfig, createMemoryRuleCounters, parseHooksConfig } from '@ahp/oracles';
import type { HookDecision, HooksConfig } from '@ahp/protocol';
import { HooksConfigSchema } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { BENCH_TRIGGER, hookEvent } from '../workload/hook-events.js';
import { generatedRule, withGeneratedRules } from './generated-rules.js';

const source = readFileSync(fileURLToPath(new URL('../../../../.ahp/hooks.yaml', import.meta.url)), 'utf8');
const parsed = parseHooksConfig(source);
if (!parsed.ok) throw new Error('the example configuration does not parse');
const example: HooksConfig = parsed.config;

async function decide(config: HooksConfig, indexRules: boolean, events: number): Promise<HookDecision[]> {
  const compiled = compileHooksConfig(config, { version: 1, indexRules });
  const counters = createMemoryRuleCounters();
  let id = 0;
  const newId = () => `00000000-0000-4000-8000-${(++id).toString(16).padStart(12, '0')}`;
  const decisions: HookDecision[] = [];
  for (let i = 0; i < events; i += 1) {
    const input = { hookId: newId(), trigger: BENCH_TRIGGER, context: hookEvent(i).context, agent: { id: `agent-${i % 4}`, name: 'bench' }, sessionId: `s-${i}` } as const;
    decisions.push(await compiled.evaluate(input, { now: () => new Date('2026-01-01T00:00:00Z'), newId, counters, budgetMs: 5000 }));
  }
  return decisions;
}

describe('generated rules', () => {
  it('are valid hooks configuration, split into oracles within the cap', () => {
    const config = withGeneratedRules(example, 10_000 + 5);
    expect(HooksConfigSchema.safeParse(config).success).toBe(true);
    const oracles = config.hooks['pre-tool-use']?.oracles ?? [];
    expect(oracles.filter((oracle) => oracle.name.startsWith('generated-')).map((oracle) => oracle.rules?.length)).toEqual([10_000, 5]);
    expect(generatedRule(7)).toEqual(generatedRule(7));
  });

  it('on the benchmark workload: indexed and linear evaluation decide the same, and as the example alone', async () => {
    const events = 100;
    const alone = await decide(example, true, events);
    const config = withGeneratedRules(example, 1000);
    const linear = await decide(config, false, events);
    const indexed = await decide(config, true, events);
    expect(indexed).toEqual(linear);
    const outcome = (decisions: HookDecision[]) => decisions.map((d) => `${d.intensity ?? 'allow'}:${d.signals.map((s) => s.header.source).join(',')}`);
    expect(outcome(indexed)).toEqual(outcome(alone));
    expect(new Set(outcome(alone)).size).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('fire on the commands they are about, through the index', async () => {
    const config = withGeneratedRules(example, 1000);
    const compiled = compileHooksConfig(config, { version: 1 });
    const rule = generatedRule(42);
    const word = /(tool\w+ctl)\\s\+\((\w+)\|/.exec(rule.condition);
    expect(word).not.toBeNull();
    const command = `${word?.[1]} ${word?.[2]} --all`;
    const decision = await compiled.evaluate(
      { hookId: '00000000-0000-4000-8000-000000000001', trigger: BENCH_TRIGGER, context: { tool: { name: 'Bash', input: { command } } }, agent: { id: 'a', name: 'a' }, sessionId: 's' },
      { now: () => new Date(), newId: () => crypto.randomUUID(), counters: createMemoryRuleCounters(), budgetMs: 5000 },
    );
    expect(decision.intensity).toBe('block');
    expect(decision.signals.map((s) => s.context?.['rule'])).toContain('gen-42');
  }, 60_000);
});
