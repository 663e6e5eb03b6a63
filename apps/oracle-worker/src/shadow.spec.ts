/**
 * The shadow runner's own logic: it starts only after the live job returned, compares decisions
 * per rule, sheds work when busy, follows the shadow as it changes, and never evaluates a shadow
 * that does not compile. Redis round trips belong to the store and system tests.
 */
import { compileHooksConfig, createMemoryRuleCounters, validateHooksConfig } from '@ahp/oracles';
import type { HookJobData, StoredShadowConfig } from '@ahp/protocol';
import type { Logger, ShadowConfigStore, ShadowObservation } from '@ahp/store';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { HookEvaluator } from './hooks-config.js';
import { createHookProcessor } from './processor.js';
import { registerShadowMetrics } from './shadow-metrics.js';
import { compareDecisions, createShadowRunner } from './shadow.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

const LIVE = `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: shell
        use: rules
        rules:
          - id: no-sudo
            condition: 'tool.input.command contains "sudo"'
            intensity: block
            message: no sudo
`;
const SHADOW = `${LIVE}          - id: no-force-push
            condition: 'tool.input.command contains "git push --force"'
            intensity: block
            message: no force push
`;

function evaluatorOf(source: string, version: number): HookEvaluator {
  const checked = validateHooksConfig(source);
  if (!checked.ok) throw new Error(checked.issues.map((i) => i.message).join('; '));
  const compiled = compileHooksConfig(checked.config, { version });
  const counters = createMemoryRuleCounters();
  return { version, evaluate: (input, deps) => compiled.evaluate(input, { ...deps, counters }) };
}

function storedShadow(shadow: number, source: string): StoredShadowConfig {
  const checked = validateHooksConfig(source);
  if (!checked.ok) throw new Error('invalid');
  return { shadow, source, digest: 'a'.repeat(64), published_at: new Date(T0).toISOString(), published_by: 'ann', live_version: 1, config: checked.config };
}

let hooks = 0;
function job(command: string): HookJobData {
  hooks += 1;
  return {
    hook_id: `0b9e4d5e-6a7c-4f1e-9a2b-${String(hooks).padStart(12, '0')}`,
    trigger: 'pre-tool-use',
    agent: { id: 'agent-1', name: 'Agent One' },
    session_id: 'session-1',
    context: { tool: { name: 'Bash', input: { command } } },
    enqueued_at: T0,
    deadline_at: T0 + 5_000,
  };
}

/** The store as the runner sees it: shadows by number, a watch the test drives, recorded observations. */
function memoryStore(shadows: StoredShadowConfig[]) {
  const recorded: ShadowObservation[] = [];
  const skipped: { shadow: number; count: number }[] = [];
  let notify: (n: number | null) => void = () => undefined;
  const store: Pick<ShadowConfigStore, 'get' | 'watch' | 'record' | 'recordSkipped'> = {
    get: async (n) => shadows.find((s) => s.shadow === n) ?? null,
    async watch(onShadow) {
      notify = onShadow;
      onShadow(shadows.length > 0 ? (shadows[0]?.shadow ?? null) : null);
      return { stop: async () => undefined };
    },
    async record(observation) {
      recorded.push(observation);
      return true;
    },
    async recordSkipped(shadow, count) {
      skipped.push({ shadow, count });
      return true;
    },
  };
  return { store, recorded, skipped, announce: (n: number | null) => notify(n) };
}

function setup(shadows: StoredShadowConfig[], compile?: (stored: StoredShadowConfig) => HookEvaluator, maxInFlight?: number) {
  const memory = memoryStore(shadows);
  const events: string[] = [];
  const runner = createShadowRunner({
    store: memory.store,
    compile:
      compile ??
      ((stored) => {
        const inner = evaluatorOf(stored.source, 0);
        return { version: 0, evaluate: (input, deps) => (events.push(`shadow ${input.hookId.slice(-2)}`), inner.evaluate(input, deps)) };
      }),
    logger: silent,
    budgetMs: 1_000,
    now: () => T0,
    newId: () => crypto.randomUUID(),
    ...(maxInFlight === undefined ? {} : { maxInFlight }),
  });
  const processor = createHookProcessor({
    hooks: {
      async decide(hookId, decision) {
        events.push(`decide ${hookId.slice(-2)}`);
        return { decision, first: true };
      },
    },
    evaluator: () => evaluatorOf(LIVE, 1),
    budgetMs: 1_000,
    logger: silent,
    now: () => T0,
    shadow: runner,
  });
  return { ...memory, events, runner, processor };
}

describe('compareDecisions', () => {
  it('names the outcomes, the rules that fired in either version and those that differ', async () => {
    const input = { hookId: '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b', trigger: 'pre-tool-use' as const, agent: { id: 'a', name: 'a' }, sessionId: 's', context: { tool: { name: 'Bash', input: { command: 'sudo git push --force' } } } };
    const deps = { now: () => new Date(T0), newId: () => crypto.randomUUID(), budgetMs: 1000, deadlineAt: T0 + 1000 };
    const live = await evaluatorOf(LIVE, 1).evaluate(input, deps);
    const shadow = await evaluatorOf(SHADOW, 0).evaluate(input, deps);
    // Both block: no disagreement, but the new rule fired and did something the live version did not.
    expect(compareDecisions(live, shadow)).toEqual({ live: 'block', shadow: 'block', fired: ['shell/no-force-push', 'shell/no-sudo'], differing: ['shell/no-force-push'] });
    const allowed = await evaluatorOf(LIVE, 1).evaluate({ ...input, context: { tool: { name: 'Bash', input: { command: 'git push --force' } } } }, deps);
    const blocked = await evaluatorOf(SHADOW, 0).evaluate({ ...input, context: { tool: { name: 'Bash', input: { command: 'git push --force' } } } }, deps);
    expect(compareDecisions(allowed, blocked)).toEqual({ live: 'allow', shadow: 'block', fired: ['shell/no-force-push'], differing: ['shell/no-force-push'] });
  });
});

describe('createShadowRunner', () => {
  it('evaluates the shadow only after the live decision was stored and the job returned, and records the disagreement', async () => {
    const { runner, processor, events, recorded } = setup([storedShadow(3, SHADOW)]);
    await runner.start();
    expect(runner.active()).toBe(3);
    const forced = job('git push --force origin main');
    await processor.process(forced, { jobId: '1', attemptsMade: 0 });
    expect(events).toEqual([`decide ${forced.hook_id.slice(-2)}`]);
    await runner.drain();
    expect(events).toEqual([`decide ${forced.hook_id.slice(-2)}`, `shadow ${forced.hook_id.slice(-2)}`]);
    expect(recorded).toEqual([
      { shadow: 3, hookId: forced.hook_id, agentId: 'agent-1', trigger: 'pre-tool-use', at: T0, live: 'allow', shadowOutcome: 'block', liveVersion: 1, fired: ['shell/no-force-push'], differing: ['shell/no-force-push'] },
    ]);
    await processor.process(job('ls'), { jobId: '2', attemptsMade: 0 });
    await runner.drain();
    expect(recorded[1]).toMatchObject({ live: 'allow', shadowOutcome: 'allow', fired: [], differing: [] });
    expect(runner.stats()).toEqual({ compared: 2, disagreed: 1, skippedBusy: 0, failed: 0 });
  });

  it('sheds shadow work when its evaluations are all busy, never the live work', async () => {
    const { runner, processor, recorded } = setup([storedShadow(1, SHADOW)], undefined, 1);
    await runner.start();
    await processor.process(job('git push --force'), { jobId: '1', attemptsMade: 0 });
    await processor.process(job('git push --force'), { jobId: '2', attemptsMade: 0 });
    await runner.drain();
    expect(recorded).toHaveLength(1);
    expect(runner.stats().skippedBusy).toBe(1);
  });

  it('counts the skipped hooks in the store together, once per flush, for the shadow they skipped', async () => {
    const { runner, processor, skipped } = setup([storedShadow(3, SHADOW)], undefined, 1);
    await runner.start();
    // One evaluation slot, three hooks in one turn of the event loop: two are skipped.
    await Promise.all(['1', '2', '3'].map((id) => processor.process(job('git push --force'), { jobId: id, attemptsMade: 0 })));
    await runner.drain();
    expect(runner.stats().skippedBusy).toBe(2);
    expect(skipped).toEqual([]);
    // Stopping counts what was not counted yet (the flush timer is 1 s away).
    await runner.stop();
    expect(skipped).toEqual([{ shadow: 3, count: 2 }]);
  });

  it('follows the shadow as it changes and stops when it is dropped', async () => {
    const { runner, processor, recorded, announce } = setup([storedShadow(1, SHADOW), storedShadow(2, LIVE)]);
    await runner.start();
    announce(2);
    await runner.settled();
    expect(runner.active()).toBe(2);
    await processor.process(job('git push --force'), { jobId: '1', attemptsMade: 0 });
    await runner.drain();
    expect(recorded.map((r) => [r.shadow, r.shadowOutcome])).toEqual([[2, 'allow']]);
    announce(null);
    await runner.settled();
    expect(runner.active()).toBeNull();
    await processor.process(job('git push --force'), { jobId: '2', attemptsMade: 0 });
    await runner.drain();
    expect(recorded).toHaveLength(1);
  });

  it('does not evaluate a shadow that does not compile on this worker, and counts a shadow that throws as an error', async () => {
    const refused = setup([storedShadow(1, SHADOW)], () => {
      throw new Error('unknown oracle "x"');
    });
    await refused.runner.start();
    expect(refused.runner.active()).toBeNull();

    const throwing = setup([storedShadow(1, SHADOW)], () => ({ version: 0, evaluate: async () => Promise.reject(new Error('boom')) }));
    await throwing.runner.start();
    await throwing.processor.process(job('ls'), { jobId: '1', attemptsMade: 0 });
    await throwing.runner.drain();
    expect(throwing.recorded).toEqual([expect.objectContaining({ shadow: 1, live: 'allow', shadowOutcome: undefined, fired: [], differing: [] })]);
    expect(throwing.runner.stats().failed).toBe(1);
  });
});

describe('registerShadowMetrics', () => {
  it('counts what became of each hook handed to the shadow, and names the shadow evaluated', async () => {
    const registry = new Registry();
    const memory = memoryStore([storedShadow(4, SHADOW)]);
    const runner = createShadowRunner({
      store: memory.store,
      compile: (stored) => evaluatorOf(stored.source, 0),
      logger: silent,
      budgetMs: 1_000,
      now: () => T0,
      newId: () => crypto.randomUUID(),
      maxInFlight: 1,
      onOutcome: registerShadowMetrics(registry, () => runner.active()),
    });
    await runner.start();
    const live = await evaluatorOf(LIVE, 1).evaluate(
      { hookId: '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b', trigger: 'pre-tool-use', agent: { id: 'a', name: 'a' }, sessionId: 's', context: { tool: { name: 'Bash', input: { command: 'git push --force' } } } },
      { now: () => new Date(T0), newId: () => crypto.randomUUID(), budgetMs: 1000, deadlineAt: T0 + 1000 },
    );
    runner.observe(job('git push --force'), live, { startedAt: T0 });
    runner.observe(job('git push --force'), live, { startedAt: T0 });
    await runner.drain();
    const text = await registry.metrics();
    expect(text).toContain('ahp_worker_shadow_evaluations_total{outcome="disagreed"} 1');
    expect(text).toContain('ahp_worker_shadow_evaluations_total{outcome="skipped_busy"} 1');
    expect(text).toContain('ahp_worker_shadow_evaluations_total{outcome="agreed"} 0');
    expect(text).toContain('ahp_worker_shadow_number 4');
  });
});
