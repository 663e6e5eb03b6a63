import { describe, expect, it } from 'vitest';
import { searchTargets } from './console-scale.js';

describe('searchTargets', () => {
  it('takes only the longest ids, so a substring search finds exactly the one searched for', () => {
    const ids = Array.from({ length: 5032 }, (_, index) => `bench-agent-${String(index)}`).slice(32);
    const targets = searchTargets(ids, 4);
    expect(targets).toHaveLength(4);
    for (const target of targets) expect(ids.filter((id) => id.includes(target))).toEqual([target]);
    // Spread over the fleet, not bunched at its start.
    expect(targets).toEqual(['bench-agent-1504', 'bench-agent-2512', 'bench-agent-3520', 'bench-agent-4528']);
  });

  it('has nothing to search in an empty fleet', () => {
    expect(searchTargets([], 3)).toEqual([]);
  });
});
