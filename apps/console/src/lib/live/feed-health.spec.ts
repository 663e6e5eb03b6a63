import { describe, expect, it } from 'vitest';
import { clockOffsetMs, DEFAULT_HEARTBEAT_MS, isStalled, STALL_AFTER_INTERVALS } from './feed-health';

describe('feed health', () => {
  it('calls a stream stalled only after it missed several heartbeats', () => {
    const last = 1_000_000;
    expect(isStalled(last, last + DEFAULT_HEARTBEAT_MS, DEFAULT_HEARTBEAT_MS)).toBe(false);
    expect(isStalled(last, last + STALL_AFTER_INTERVALS * DEFAULT_HEARTBEAT_MS, DEFAULT_HEARTBEAT_MS)).toBe(false);
    expect(isStalled(last, last + STALL_AFTER_INTERVALS * DEFAULT_HEARTBEAT_MS + 1, DEFAULT_HEARTBEAT_MS)).toBe(true);
    // A gateway that announces a slower heartbeat gets more time.
    expect(isStalled(last, last + 10_000, 5_000)).toBe(false);
  });

  it('measures how far the gateway clock is from the browser clock', () => {
    const received = Date.parse('2026-01-01T10:00:00.000Z');
    expect(clockOffsetMs('2026-01-01T10:00:07.000Z', received)).toBe(7_000);
    expect(clockOffsetMs('2026-01-01T09:58:00.000Z', received)).toBe(-120_000);
    expect(clockOffsetMs('not a time', received)).toBeUndefined();
  });
});
