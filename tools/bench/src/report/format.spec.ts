import { describe, expect, it } from 'vitest';
import { count, duration, kib, ms } from './format.js';

describe('formats', () => {
  it('keeps three significant digits for milliseconds and groups large ones', () => {
    expect(ms(0.051234)).toBe('0.0512 ms');
    expect(ms(1.23456)).toBe('1.23 ms');
    expect(ms(42.06)).toBe('42.1 ms');
    expect(ms(1234.4)).toBe('1,234 ms');
    expect(ms(Number.NaN)).toBe('—');
  });

  it('groups thousands and shows unknown values as a dash', () => {
    expect(count(12345.6)).toBe('12,346');
    expect(count(null)).toBe('—');
  });

  it('shows KiB and durations', () => {
    expect(kib(13_722)).toBe('13.4 KB');
    expect(duration(42)).toBe('42.0 s');
    expect(duration(125)).toBe('2m 05s');
  });
});
