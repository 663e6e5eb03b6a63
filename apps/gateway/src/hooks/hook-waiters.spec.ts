import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HookWaiters, MAX_WAITERS_PER_HOOK, type HookWaiter } from './hook-waiters.js';

interface TestWaiter extends HookWaiter {
  readonly label: string;
}

function waiter(hookId: string, owner: object | undefined, label: string, receivedAt = 0): TestWaiter {
  return { hookId, trigger: 'pre-tool-use', agentId: 'agent-1', owner, receivedAt, label };
}

describe('HookWaiters', () => {
  let deadlines: string[];
  let removed: string[];
  let waiters: HookWaiters<TestWaiter>;

  beforeEach(() => {
    vi.useFakeTimers();
    deadlines = [];
    removed = [];
    waiters = new HookWaiters<TestWaiter>(
      (hookId) => deadlines.push(hookId),
      (w) => removed.push(w.label),
    );
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands every waiter of a hook over once, however often the decision arrives', () => {
    const a = {};
    const b = {};
    expect(waiters.add(waiter('h1', a, 'a'), 1000, 0)).toBe(true);
    expect(waiters.add(waiter('h1', b, 'b'), 1000, 0)).toBe(true);
    expect(waiters.add(waiter('h2', undefined, 'http'), 1000, 0)).toBe(true);
    expect(waiters.size).toBe(2);
    expect(waiters.first('h1')?.label).toBe('a');
    expect(waiters.find('h1', b)?.label).toBe('b');

    expect(waiters.take('h1').map((w) => w.label)).toEqual(['a', 'b']);
    expect(waiters.take('h1')).toEqual([]);
    expect(removed).toEqual(['a', 'b']);
    expect(waiters.size).toBe(1);
    vi.advanceTimersByTime(2000);
    expect(deadlines).toEqual(['h2']);
  });

  it('keeps one entry per owner: a re-send on the same socket replaces it', () => {
    const socket = {};
    waiters.add(waiter('h1', socket, 'first'), 1000, 0);
    waiters.add(waiter('h1', socket, 'again'), 1000, 0);
    expect(removed).toEqual(['first']);
    expect(waiters.take('h1').map((w) => w.label)).toEqual(['again']);
  });

  it(`refuses a waiter beyond ${MAX_WAITERS_PER_HOOK} for one hook and registers nothing for it`, () => {
    for (let i = 0; i < MAX_WAITERS_PER_HOOK; i++) expect(waiters.add(waiter('h1', {}, `s${i}`), 1000, 0)).toBe(true);
    const late = {};
    expect(waiters.add(waiter('h1', late, 'late'), 1000, 0)).toBe(false);
    expect(waiters.find('h1', late)).toBeUndefined();
    expect(waiters.add(waiter('h2', late, 'other hook'), 1000, 0)).toBe(true);
  });

  it('calls the deadline for a hook still waited for, and not for one that was answered or whose socket left', () => {
    const gone = waiter('h2', {}, 'gone');
    waiters.add(waiter('h1', {}, 'a'), 500, 0);
    waiters.add(gone, 500, 0);
    waiters.add(waiter('h3', undefined, 'answered'), 500, 0);
    waiters.remove(gone);
    waiters.take('h3');
    vi.advanceTimersByTime(500);
    expect(deadlines).toEqual(['h1']);
    // The deadline leaves the waiter in place: the failure policy's decision must still reach it.
    expect(waiters.first('h1')?.label).toBe('a');
  });

  it('tells the shutdown when the last waiter left, or that the grace ran out', async () => {
    const socket = {};
    waiters.add(waiter('h1', socket, 'a'), 10_000, 0);
    const idle = waiters.whenIdle(5000);
    const late = waiters.whenIdle(100);
    vi.advanceTimersByTime(100);
    await expect(late).resolves.toBe(false);
    const w = waiters.find('h1', socket);
    if (w !== undefined) waiters.remove(w);
    await expect(idle).resolves.toBe(true);
    await expect(waiters.whenIdle(1)).resolves.toBe(true);
  });

  it('takes every waiter of every hook at shutdown', () => {
    waiters.add(waiter('h1', {}, 'a'), 1000, 0);
    waiters.add(waiter('h2', undefined, 'b'), 1000, 0);
    expect(waiters.takeAll().map((w) => w.label).sort()).toEqual(['a', 'b']);
    expect(waiters.size).toBe(0);
    vi.advanceTimersByTime(2000);
    expect(deadlines).toEqual([]);
  });
});
