import { describe, expect, it } from 'vitest';
import { transitionCounts, transitionsText } from './transitions';

describe('transitions', () => {
  it('reads the replay list and the shadow record alike, most hooks first', () => {
    const list = [
      { from: 'allow' as const, to: 'block' as const, count: 1 },
      { from: 'block' as const, to: 'allow' as const, count: 3 },
    ];
    expect(transitionsText(list)).toBe('block → allow 3, allow → block 1');
    expect(transitionsText({ 'allow→block': 1, 'block→allow': 3 })).toBe('block → allow 3, allow → block 1');
    expect(transitionCounts(list)).toEqual(transitionCounts({ 'allow→block': 1, 'block→allow': 3 }));
  });

  it('says so when nothing changed', () => {
    expect(transitionsText([])).toBe('—');
    expect(transitionsText({})).toBe('—');
  });
});
