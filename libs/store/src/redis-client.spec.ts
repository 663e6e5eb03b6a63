import { describe, expect, it } from 'vitest';
import { reconnectDelay } from './redis-client.js';

describe('reconnectDelay', () => {
  it('doubles from the minimum up to the maximum, with at most 20 % jitter', () => {
    const none = () => 0;
    expect([0, 1, 2, 3].map((retries) => reconnectDelay(retries, 50, 5000, none))).toEqual([50, 100, 200, 400]);
    expect(reconnectDelay(20, 50, 5000, none)).toBe(5000);
    expect(reconnectDelay(10_000, 50, 5000, none)).toBe(5000);
    expect(reconnectDelay(20, 50, 5000, () => 0.999)).toBeLessThanOrEqual(6000);
  });
});
