import { describe, expect, it } from 'vitest';
import { InputBudgets, TokenBucket } from './input-budget.js';

describe('TokenBucket', () => {
  it('gives its burst at once, then its rate', () => {
    const bucket = new TokenBucket(10, 5, 0);
    for (let i = 0; i < 5; i++) expect(bucket.take(1, 0)).toBe(true);
    expect(bucket.take(1, 0)).toBe(false);
    expect(bucket.take(1, 99)).toBe(false);
    expect(bucket.take(1, 100)).toBe(true);
    expect(bucket.isFull(100)).toBe(false);
    expect(bucket.isFull(600)).toBe(true);
    // Never more than the burst, however long the pause.
    expect(bucket.take(6, 1_000_000)).toBe(false);
    expect(bucket.take(5, 1_000_000)).toBe(true);
  });

  it('takes nothing when it refuses', () => {
    const bucket = new TokenBucket(1, 10, 0);
    expect(bucket.take(11, 0)).toBe(false);
    expect(bucket.take(10, 0)).toBe(true);
  });

  it('does not refill when the clock goes back', () => {
    const bucket = new TokenBucket(1000, 2, 1000);
    expect(bucket.take(2, 1000)).toBe(true);
    expect(bucket.take(1, 500)).toBe(false);
  });
});

describe('InputBudgets', () => {
  const limits = { framesPerSecond: 10, frameBurst: 3, bytesPerSecond: 1000, byteBurst: 2000 };

  it('charges frames and bytes per agent, shared by its connections', () => {
    const budgets = new InputBudgets(limits);
    expect(budgets.charge('a', 1, 100, 0)).toBeNull();
    expect(budgets.charge('a', 1, 100, 0)).toBeNull();
    expect(budgets.charge('a', 1, 100, 0)).toBeNull();
    expect(budgets.charge('a', 1, 100, 0)).toBe('frames');
    // Another agent has its own.
    expect(budgets.charge('b', 1, 2000, 0)).toBeNull();
    expect(budgets.charge('b', 0, 1, 0)).toBe('bytes');
  });

  it('refuses a message over the byte budget as a whole, giving its frame back', () => {
    const budgets = new InputBudgets(limits);
    expect(budgets.charge('a', 1, 2001, 0)).toBe('bytes');
    expect(budgets.charge('a', 1, 10, 0)).toBeNull();
    expect(budgets.charge('a', 1, 10, 0)).toBeNull();
    expect(budgets.charge('a', 1, 10, 0)).toBeNull();
    expect(budgets.charge('a', 1, 10, 0)).toBe('frames');
  });

  it('forgets budgets once they refilled, and only those', () => {
    const budgets = new InputBudgets(limits);
    budgets.charge('a', 1, 1000, 0);
    budgets.charge('b', 1, 10, 0);
    budgets.sweep(50);
    expect(budgets.size).toBe(2);
    budgets.sweep(150);
    // b: its frame back after 100 ms, its bytes after 10 ms; a misses bytes until 1 s.
    expect(budgets.size).toBe(1);
    budgets.sweep(1000);
    expect(budgets.size).toBe(0);
  });
});
