import { parseHookContext } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WORKLOAD, FAIL_CLOSED_TRIGGER, FAIL_OPEN_TRIGGER, planHook } from './workload.js';

describe('planHook', () => {
  it('depends only on the seed and the stamp', () => {
    const stamp = { agent: 'agent-01', seq: 17 };
    expect(planHook(5, stamp, DEFAULT_WORKLOAD)).toEqual(planHook(5, stamp, DEFAULT_WORKLOAD));
    const others = Array.from({ length: 20 }, (_, i) => planHook(6 + i, stamp, DEFAULT_WORKLOAD));
    expect(new Set(others.map((plan) => JSON.stringify(plan))).size).toBeGreaterThan(1);
  });

  it('stamps the context and asks the test oracle only for what the trigger allows', () => {
    const plans = Array.from({ length: 2000 }, (_, i) => planHook(1, { agent: 'a', seq: i + 1 }, DEFAULT_WORKLOAD));
    for (const [i, plan] of plans.entries()) {
      const chaos = (plan.context as { extra: { chaos: Record<string, unknown> } }).extra.chaos;
      expect(parseHookContext(plan.trigger, plan.context).ok).toBe(true);
      expect(chaos['agent']).toBe('a');
      expect(chaos['seq']).toBe(i + 1);
      if (chaos['verdict'] === 'block') expect(plan.trigger).toBe(FAIL_CLOSED_TRIGGER);
      expect(plan.allowedByOracles).toBe(chaos['verdict'] !== 'block');
      // pre-tool-use fails closed, post-tool-use fails open (the protocol's defaults).
      expect(plan.allowedByPolicy).toBe(plan.trigger === FAIL_OPEN_TRIGGER);
      if (chaos['slow_ms'] !== undefined) {
        expect(chaos['slow_ms']).toBeGreaterThanOrEqual(DEFAULT_WORKLOAD.slowMs.min);
        expect(chaos['slow_ms']).toBeLessThanOrEqual(DEFAULT_WORKLOAD.slowMs.max);
      }
    }
    const share = (match: (p: (typeof plans)[number]) => boolean) => plans.filter(match).length / plans.length;
    expect(share((p) => p.trigger === FAIL_OPEN_TRIGGER)).toBeCloseTo(DEFAULT_WORKLOAD.failOpenShare, 1);
    expect(share((p) => 'slow_ms' in (p.context as { extra: { chaos: object } }).extra.chaos)).toBeCloseTo(DEFAULT_WORKLOAD.slowShare, 1);
  });
});
