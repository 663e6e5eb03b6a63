import { MAX_JOB_PRIORITY } from '@ahp/store';
import { describe, expect, it } from 'vitest';
import { hookQueuePriority } from './queue-priority.js';

describe('hookQueuePriority', () => {
  it('gives no priority within the fair share', () => {
    expect(hookQueuePriority(1, 16)).toBeUndefined();
    expect(hookQueuePriority(16, 16)).toBeUndefined();
  });

  it('gives the hooks beyond it a priority that grows with the backlog, within BullMQ’s range', () => {
    expect(hookQueuePriority(17, 16)).toBe(1);
    expect(hookQueuePriority(256, 16)).toBe(240);
    expect(hookQueuePriority(MAX_JOB_PRIORITY + 100, 1)).toBe(MAX_JOB_PRIORITY);
  });

  it('is off with a share of 0', () => {
    expect(hookQueuePriority(10_000, 0)).toBeUndefined();
  });
});
