/**
 * Prometheus series of shadow mode (shadow.ts), registered on the worker's own registry beside
 * metrics.ts: what became of each hook handed to the shadow, and which shadow is evaluated.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ShadowOutcomeKind } from './shadow.js';

const KINDS: readonly ShadowOutcomeKind[] = ['agreed', 'disagreed', 'error', 'skipped_busy'];

/** Registers the series on `registry`; returns what the shadow runner reports to. */
export function registerShadowMetrics(registry: Registry, activeShadow: () => number | null): (kind: ShadowOutcomeKind) => void {
  const evaluations = new Counter({
    name: 'ahp_worker_shadow_evaluations_total',
    help: 'Hooks handed to the shadow configuration after their live decision, by outcome: agreed, disagreed, error (evaluation or recording failed), skipped_busy (every shadow slot was busy; not shadowed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Every outcome from the start, so rate() sees a 0 rather than no series.
  for (const outcome of KINDS) evaluations.inc({ outcome }, 0);
  new Gauge({
    name: 'ahp_worker_shadow_number',
    help: 'Shadow hooks configuration this worker evaluates beside the live one (0: none).',
    registers: [registry],
    collect() {
      this.set(activeShadow() ?? 0);
    },
  });
  return (kind) => evaluations.inc({ outcome: kind });
}
