import { describe, expect, it } from 'vitest';
import { formatAgo, formatDeadline, formatMs, formatSpan, formatTimestamp } from './format';

describe('format', () => {
  it('writes spans as people say them', () => {
    expect(formatSpan(400)).toBe('0 s');
    expect(formatSpan(45_000)).toBe('45 s');
    expect(formatSpan(12 * 60_000)).toBe('12 min');
    expect(formatSpan(3 * 3_600_000 + 5 * 60_000)).toBe('3 h 5 min');
    expect(formatSpan(2 * 86_400_000)).toBe('2 d');
  });

  it('writes ages and deadlines relative to now', () => {
    const now = Date.parse('2026-01-01T10:00:00.000Z');
    expect(formatAgo('2026-01-01T09:57:00.000Z', now)).toBe('3 min ago');
    expect(formatAgo('2026-01-01T10:00:00.500Z', now)).toBe('just now');
    // A past event stamped by a server whose clock runs ahead of the browser's.
    expect(formatAgo('2026-01-01T10:00:07.000Z', now)).toBe('just now');
    expect(formatDeadline('2026-01-01T10:04:00.000Z', now)).toBe('in 4 min');
    expect(formatDeadline('2026-01-01T09:59:40.000Z', now)).toBe('passed 20 s ago');
  });

  it('writes absolute times in UTC and latencies with units', () => {
    expect(formatTimestamp('2026-02-09T10:02:30.123Z')).toBe('2026-02-09 10:02:30 UTC');
    expect(formatMs(12.4)).toBe('12 ms');
    expect(formatMs(1400)).toBe('1.4 s');
    expect(formatMs(null)).toBe('–');
  });
});
