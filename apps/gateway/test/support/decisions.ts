/**
 * Decisions and signals as a worker would produce them, and a way to wait until the gateway has
 * enqueued a hook (the moment a worker could pick it up).
 */
import { randomUUID } from 'node:crypto';
import { aggregateSignals, type HookDecision, type HookJobData, type HookTrigger, type Signal } from '@ahp/protocol';
import { vi } from 'vitest';
import type { TestStore } from './test-gateway.js';

/** A prompt-intensity signal (actions: acknowledge, apply_suggestion, dismiss). */
export function promptSignal(hookId: string, now = new Date().toISOString()): Signal {
  return {
    header: { id: randomUUID(), type: 'quality-gate', timestamp: now, source: 'int-spec-oracle', intensity: 'prompt', correlation_id: hookId },
    context: {},
    payload: {
      level: 'prompting',
      decision: 'warn',
      severity: 'medium',
      message: 'consider running the tests first',
      suggestions: ['run the tests'],
      continue_allowed: true,
    },
  };
}

/** What an oracle worker would decide: the aggregate of `signals` (none: allow). */
export function workerDecision(hookId: string, trigger: HookTrigger, signals: Signal[] = []): HookDecision {
  return aggregateSignals({ hookId, trigger, signals, now: new Date().toISOString() });
}

/** Waits until the hook's job is in the queue and returns its data, as a worker would see it. */
export async function waitForJob(store: TestStore, hookId: string): Promise<HookJobData> {
  return vi.waitFor(
    async () => {
      const job = await store.queue.queueFor(hookId).getJob(hookId);
      if (job === undefined) throw new Error(`job ${hookId} not enqueued yet`);
      return job.data;
    },
    { timeout: 10_000, interval: 20 },
  );
}

/** Enqueued, then decided by the test, as a worker would. Returns what the store kept. */
export async function decideAsWorker(store: TestStore, hookId: string, trigger: HookTrigger, signals: Signal[] = []) {
  await waitForJob(store, hookId);
  return store.stores.hooks.decide(hookId, workerDecision(hookId, trigger, signals), Date.now());
}

/** A block-intensity signal (actions: retry_after_fix, proceed_with_risk, abort): it must be answered. */
export function blockSignal(hookId: string, now = new Date().toISOString()): Signal {
  return {
    header: { id: randomUUID(), type: 'permission-check', timestamp: now, source: 'int-spec-oracle', intensity: 'block', correlation_id: hookId },
    context: {},
    payload: { level: 'blocking', decision: 'deny', reason: 'destructive command', resolvable: true, resolution_path: ['use a narrower command'] },
  };
}

/** A control-intensity signal (actions: accept_modification, reject_modification): it must be answered. */
export function controlSignal(hookId: string, now = new Date().toISOString()): Signal {
  return {
    header: { id: randomUUID(), type: 'permission-check', timestamp: now, source: 'int-spec-oracle', intensity: 'control', correlation_id: hookId },
    context: {},
    payload: { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'force', original: true, updated: false, reason: 'no force pushes' }], reversible: true },
  };
}
