import { describe, expect, it } from 'vitest';
import { RECONNECT_BASE_MS, RECONNECT_MAX_MS, reconnectDelayMs } from './reconnect';

describe('reconnectDelayMs', () => {
  it('doubles from the base and stops at the ceiling', () => {
    expect(reconnectDelayMs(0, 1)).toBe(RECONNECT_BASE_MS);
    expect(reconnectDelayMs(1, 1)).toBe(RECONNECT_BASE_MS * 2);
    expect(reconnectDelayMs(3, 1)).toBe(RECONNECT_BASE_MS * 8);
    expect(reconnectDelayMs(50, 1)).toBe(RECONNECT_MAX_MS);
  });

  it('jitters within the upper half of the ceiling', () => {
    expect(reconnectDelayMs(2, 0)).toBe(RECONNECT_BASE_MS * 2);
    expect(reconnectDelayMs(50, 0)).toBe(RECONNECT_MAX_MS / 2);
    for (const random of [-1, 0.3, 0.99, 7]) {
      const delay = reconnectDelayMs(4, random);
      expect(delay).toBeGreaterThanOrEqual(RECONNECT_BASE_MS * 8);
      expect(delay).toBeLessThanOrEqual(RECONNECT_BASE_MS * 16);
    }
  });
});
