import { describe, expect, it } from 'vitest';
import { startRssSampler } from './rss-sampler.js';

describe('startRssSampler', () => {
  it('reports a peak at least as large as the resident set it started with', () => {
    const sampler = startRssSampler(process.pid);
    const peak = sampler.stop();
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeGreaterThanOrEqual(process.memoryUsage().rss / 4);
  });

  it('keeps its peak once stopped', () => {
    const sampler = startRssSampler(process.pid);
    expect(sampler.stop()).toBe(sampler.stop());
  });

  it('reports 0 for a process that does not exist', () => {
    expect(startRssSampler(2 ** 22 + 12_345).stop()).toBe(0);
  });
});
