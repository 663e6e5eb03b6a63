import { describe, expect, it } from 'vitest';
import { feasibleSteps } from './connections.js';

describe('capacity steps under an open-files limit', () => {
  it('keeps the steps that fit', () => {
    expect(feasibleSteps([10_000, 20_000], 50_000)).toEqual([10_000, 20_000]);
  });

  it('replaces the steps that do not fit by the most that does, once', () => {
    expect(feasibleSteps([10_000, 20_000, 30_000, 40_000], 19_500)).toEqual([10_000, 19_500]);
  });
});
