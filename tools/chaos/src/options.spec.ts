import { describe, expect, it } from 'vitest';
import { RECOMMENDED_BULLMQ, checkChaosOptions, ciChaosOptions, defaultChaosOptions } from './options.js';

describe('chaos options', () => {
  it('ships presets that pass their own checks, with stop-worker pauses beyond the lock', () => {
    for (const options of [defaultChaosOptions(1), ciChaosOptions(1)]) {
      expect(() => checkChaosOptions(options)).not.toThrow();
      expect(options.faults.pauseMs.min).toBeGreaterThan(options.bullmq.lockMs);
      expect(options.bullmq).toEqual(RECOMMENDED_BULLMQ);
    }
    expect(ciChaosOptions(1).durationMs).toBeLessThanOrEqual(120_000);
  });

  it('refuses settings that would make the run meaningless', () => {
    const base = defaultChaosOptions(1);
    expect(() => checkChaosOptions({ ...base, gateways: 1 })).toThrow(/fail over/);
    expect(() => checkChaosOptions({ ...base, workers: 1 })).toThrow(/stalled job/);
    expect(() => checkChaosOptions({ ...base, agents: 0 })).toThrow(/agents/);
    expect(() => checkChaosOptions({ ...base, faults: { ...base.faults, pauseMs: { min: 1000, max: 2000 } } })).toThrow(/outlast the job lock/);
    expect(() => checkChaosOptions({ ...base, agentDeadlineMs: base.gatewayDeadlineMs })).toThrow(/agent deadline/);
    expect(() => checkChaosOptions({ ...base, workload: { ...base.workload, slowMs: { min: 1, max: 20_000 } } })).toThrow(/slow evaluations/);
  });
});
