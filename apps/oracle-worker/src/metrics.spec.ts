/**
 * The worker's metric definitions, fed by the real hook processor through its `metrics` option.
 * The processor's HookStore is an in-memory first-writer-wins stand-in for `decide` (as in
 * processor.spec.ts); the worker process is scraped for real in e2e/system/metrics.int.spec.ts.
 */
import type { Oracle } from '@ahp/oracles';
import type { HookDecision, HookJobData } from '@ahp/protocol';
import type { HookStore } from '@ahp/store';
import { JsonLogger } from '@ahp/telemetry';
import { describe, expect, it } from 'vitest';
import { WorkerMetrics } from './metrics.js';
import { createHookProcessor } from './processor.js';

const T0 = Date.parse('2025-01-02T03:04:05.000Z');

function memoryHooks(): Pick<HookStore, 'decide'> {
  const stored = new Map<string, HookDecision>();
  return {
    async decide(hookId, decision) {
      const earlier = stored.get(hookId);
      if (earlier !== undefined) return { decision: earlier, first: false };
      stored.set(hookId, decision);
      return { decision, first: true };
    },
  };
}

function job(hookId: string, overrides: Partial<HookJobData> = {}): HookJobData {
  return {
    hook_id: hookId,
    trigger: 'pre-tool-use',
    agent: { id: 'agent-1', name: 'Agent One' },
    session_id: 'session-1',
    context: { tool: { name: 'Bash', input: { command: 'ls' } } },
    enqueued_at: T0 - 30,
    deadline_at: T0 + 5_000,
    ...overrides,
  };
}

const quiet: Oracle = { name: 'quiet', evaluate: () => [] };
const broken: Oracle = {
  name: 'broken',
  evaluate: () => {
    throw new Error('boom');
  },
};

function samples(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

const HOOK_A = '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';
const HOOK_B = '1b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';
const HOOK_C = '2b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b';

describe('WorkerMetrics', () => {
  it('counts job outcomes, queue waits, evaluation and oracle durations reported by the processor', async () => {
    const active: { version: number | undefined } = { version: undefined };
    const metrics = new WorkerMetrics({ configVersion: () => active.version, processMetrics: false });
    const logger = new JsonLogger({ write: () => undefined });
    const hooks = memoryHooks();
    const processor = (oracles: Oracle[]) => createHookProcessor({ hooks, oracles, budgetMs: 1000, logger, now: () => T0, metrics: metrics.processor });
    const meta = (jobId: string) => ({ jobId, attemptsMade: 0 });

    await processor([quiet]).process(job(HOOK_A), meta(HOOK_A));
    await processor([quiet]).process(job(HOOK_A), meta(HOOK_A));
    await processor([broken]).process(job(HOOK_B, { trigger: 'stop' }), meta(HOOK_B));
    await processor([quiet]).process(job(HOOK_C, { deadline_at: T0 - 1, enqueued_at: T0 - 2_000 }), meta(HOOK_C));
    metrics.jobFailed();

    let lines = samples((await metrics.render()).body);
    expect(lines).toEqual(
      expect.arrayContaining([
        'ahp_worker_jobs_total{outcome="decided"} 1',
        'ahp_worker_jobs_total{outcome="duplicate"} 1',
        'ahp_worker_jobs_total{outcome="oracle_failure"} 1',
        'ahp_worker_jobs_total{outcome="skipped_past_deadline"} 1',
        'ahp_worker_jobs_total{outcome="failed"} 1',
        // Waits: 30 ms for the three evaluated jobs, 2 s for the one that missed its deadline.
        'ahp_hook_queue_wait_seconds_bucket{le="0.025",trigger="pre-tool-use"} 0',
        'ahp_hook_queue_wait_seconds_bucket{le="0.05",trigger="pre-tool-use"} 2',
        'ahp_hook_queue_wait_seconds_bucket{le="2.5",trigger="pre-tool-use"} 3',
        'ahp_hook_queue_wait_seconds_count{trigger="stop"} 1',
        // Skipped jobs are not evaluated, so only three evaluations are timed.
        'ahp_worker_evaluation_duration_seconds_count{trigger="pre-tool-use"} 2',
        'ahp_worker_evaluation_duration_seconds_count{trigger="stop"} 1',
        'ahp_oracle_run_duration_seconds_count{oracle="quiet",outcome="answered"} 2',
        'ahp_oracle_run_duration_seconds_count{oracle="broken",outcome="threw"} 1',
        'ahp_worker_config_version 0',
      ]),
    );

    active.version = 4;
    lines = samples((await metrics.render()).body);
    expect(lines).toContain('ahp_worker_config_version 4');
  });

  it('shows every outcome at 0 before any job, and process metrics under the worker prefix', async () => {
    const metrics = new WorkerMetrics({ configVersion: () => undefined });
    const { body, contentType } = await metrics.render();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const outcome of ['decided', 'duplicate', 'oracle_failure', 'skipped_past_deadline', 'failed']) {
      expect(samples(body)).toContain(`ahp_worker_jobs_total{outcome="${outcome}"} 0`);
    }
    expect(body).toMatch(/^ahp_worker_process_cpu_user_seconds_total \d/m);
  });
});
