import { describe, expect, it } from 'vitest';
import type { BenchResults, Measured } from '../results.js';
import { summarize } from '../stats/latency.js';
import { buildTargets } from './target-list.js';
import { evaluateTarget, formatVerdict, type TargetSpec } from './targets.js';

const spec = (actual: number | undefined, limit: number | undefined, comparison: TargetSpec['comparison'] = 'at_most'): TargetSpec => ({
  id: 't',
  label: 't',
  actual,
  limit,
  comparison,
  unit: 'ms',
});

describe('evaluateTarget', () => {
  it('passes an at-most target at or under the limit, with actual / limit as the ratio', () => {
    expect(evaluateTarget(spec(1, 2))).toMatchObject({ status: 'PASS', ratio: 0.5 });
    expect(evaluateTarget(spec(2, 2))).toMatchObject({ status: 'PASS', ratio: 1 });
    expect(evaluateTarget(spec(3, 2))).toMatchObject({ status: 'FAIL', ratio: 1.5 });
  });

  it('passes an at-least target at or over the limit', () => {
    expect(evaluateTarget(spec(3600, 3000, 'at_least'))).toMatchObject({ status: 'PASS', ratio: 1.2 });
    expect(evaluateTarget(spec(1500, 3000, 'at_least'))).toMatchObject({ status: 'FAIL', ratio: 0.5 });
  });

  it('skips when the figure or its limit is missing, and says which', () => {
    expect(evaluateTarget(spec(undefined, 2))).toMatchObject({ status: 'SKIP', ratio: null, reason: 'the figure was not measured' });
    expect(evaluateTarget(spec(1, Number.NaN)).reason).toMatch(/limit/);
  });

  it('formats the verdict with the ratio', () => {
    expect(formatVerdict(evaluateTarget(spec(1.234, 2)))).toBe('PASS 0.62×');
    expect(formatVerdict(evaluateTarget(spec(undefined, 2)))).toBe('SKIP');
  });
});

const latency = (p50: number, p99 = p50 * 2): Measured => ({
  latency: { ...summarize([p50]), p50, p99 },
  errors: 0,
  errorCodes: {},
});
const commands = (perOperation: number) => ({ operations: 100, perOperation, scriptsPerOperation: 1, byCommand: [] });
const cpu = { wallSeconds: 1, processes: [], totalPercent: 0 };
const echo = (p50: number) => ({ roundTrip: latency(p50), messagesPerSecond: 10_000, messageBytes: 1024, cpu });

function results(overrides: Partial<BenchResults['product']> = {}): BenchResults {
  return {
    baselines: {
      ws: echo(0.1),
      nest: echo(0.13),
      nestRaw: echo(0.105),
      bullmq: {
        roundTrip: latency(0.8),
        maxJobsPerSecond: 4000,
        workers: 2,
        concurrencyPerWorker: 16,
        commandsPerJob: commands(10),
        commandsPerJobLoaded: commands(8),
        cpu,
        cpuPerJob: { processes: [], totalMs: 0 },
      },
      spawn: { roundTrip: latency(40), cpu },
      eval: { call: latency(0.05), callsPerSecond: 20_000, rules: 'defaults' },
    },
    product: {
      decision: { roundTrip: latency(1.2), commandsPerDecision: commands(22) },
      maxSustainedPerSecond: 3500,
      rateSteps: [],
      halfLoad: { rate: 1750, ...latency(1.5, 4), commandsPerDecision: commands(20), cpu, maxStartLagMs: 1 },
      memory: {
        connections: 10_000,
        connected: 10_000,
        failed: 0,
        heartbeatMs: 15_000,
        before: { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0, gcAvailable: true },
        after: { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0, gcAvailable: true },
        rssPerConnection: 25 * 1024,
        heapPerConnection: 10_000,
        externalPerConnection: 100,
      },
      capacity: { p95LimitMs: 250, maxAgents: 30_000, steps: [] },
      approvals: { status: 'skipped', reason: 'no RequestStore' },
      ...overrides,
    },
  } as unknown as BenchResults;
}

describe('buildTargets', () => {
  const byId = (list: ReturnType<typeof buildTargets>) => Object.fromEntries(list.map((target) => [target.id, target]));

  it('derives limits from the baselines of the same run', () => {
    const targets = byId(buildTargets(results()));
    // 0.1 (ws) + 0.8 (bullmq) + 0.05 (eval) + 0.5 = 1.45 ms; decision p50 1.2 ms.
    expect(targets['decision-p50-vs-parts']).toMatchObject({ actual: 1.2, status: 'PASS' });
    expect(targets['decision-p50-vs-parts']?.limit).toBeCloseTo(1.45);
    expect(targets['decision-p50-vs-spawn']).toMatchObject({ limit: 2, status: 'PASS' });
    expect(targets['half-load-p99']).toMatchObject({ actual: 4, limit: 4.8, status: 'PASS' });
    expect(targets['sustained-vs-bullmq']).toMatchObject({ limit: 3200, status: 'PASS' });
    expect(targets['redis-commands']).toMatchObject({ actual: 22, limit: 13, status: 'FAIL' });
    // Nest's own dispatch over the limit, the gateway's configuration (dispatch bypassed) within it.
    expect(targets['nest-vs-ws']).toMatchObject({ actual: 0.13, status: 'FAIL' });
    expect(targets['nest-raw-vs-ws']).toMatchObject({ actual: 0.105, status: 'PASS' });
    expect(targets['idle-connection-memory']).toMatchObject({ actual: 25, status: 'FAIL', ratio: 1.25 });
    expect(targets['connected-agents']).toMatchObject({ actual: 30_000, status: 'PASS' });
  });

  it('skips approvals with the reason the phase gave', () => {
    expect(byId(buildTargets(results()))['approval-p50']).toMatchObject({ status: 'SKIP', reason: 'approvals not available: no RequestStore' });
  });

  it('fails the sustained targets when steps ran but none passed', () => {
    const targets = byId(buildTargets(results({ maxSustainedPerSecond: null })));
    expect(targets['sustained-absolute']).toMatchObject({ actual: 0, status: 'FAIL' });
    expect(targets['half-load-p99']?.status).toBe('SKIP');
  });

  it('skips the capacity target when a short mode never reached the limit, and fails it when a step broke', () => {
    const step = (agents: number, passed: boolean) => ({ agents, passed }) as NonNullable<BenchResults['product']['capacity']>['steps'][number];
    const short = byId(buildTargets(results({ capacity: { p95LimitMs: 250, maxAgents: 2000, steps: [step(2000, true)] } })));
    expect(short['connected-agents']?.status).toBe('SKIP');
    const capped = byId(
      buildTargets(results({ capacity: { p95LimitMs: 250, maxAgents: 19_500, steps: [step(19_500, true)], ceiling: { connections: 19_500, reason: 'fd limit' } } })),
    );
    expect(capped['connected-agents']).toMatchObject({ status: 'SKIP', reason: expect.stringMatching(/fd limit$/) as unknown });
    const broke = byId(buildTargets(results({ capacity: { p95LimitMs: 250, maxAgents: 10_000, steps: [step(10_000, true), step(20_000, false)] } })));
    expect(broke['connected-agents']).toMatchObject({ actual: 10_000, status: 'FAIL', ratio: 0.5 });
  });

  it('skips targets whose phases did not run', () => {
    const targets = buildTargets({ baselines: {}, product: {} } as unknown as BenchResults);
    expect(targets.every((target) => target.status === 'SKIP')).toBe(true);
  });
});
