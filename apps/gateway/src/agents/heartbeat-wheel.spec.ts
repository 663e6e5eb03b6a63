import { describe, expect, it } from 'vitest';
import { HeartbeatWheel } from './heartbeat-wheel.js';

/** Every member visited during one full period, in visit order. */
function onePeriod<T>(wheel: HeartbeatWheel<T>): T[][] {
  return Array.from({ length: wheel.sliceCount }, () => wheel.turn());
}

describe('HeartbeatWheel', () => {
  it('visits every member exactly once per period, a slice per tick', () => {
    const wheel = new HeartbeatWheel<number>(4);
    for (let member = 0; member < 10; member++) wheel.add(member);
    const visits = onePeriod(wheel);
    expect(visits.flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(onePeriod(wheel)).toEqual(visits);
  });

  it('deals members that join together to different slices, so a burst of connections is not pinged in one tick', () => {
    const wheel = new HeartbeatWheel<number>(150);
    for (let member = 0; member < 20_000; member++) wheel.add(member);
    const sizes = onePeriod(wheel).map((slice) => slice.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it('forgets a deleted member, and adding a member twice keeps one place', () => {
    const wheel = new HeartbeatWheel<string>(3);
    wheel.add('a');
    wheel.add('b');
    wheel.add('a');
    wheel.delete('b');
    wheel.delete('never-added');
    expect(wheel.size).toBe(1);
    expect(onePeriod(wheel).flat()).toEqual(['a']);
  });

  it('hands out a copy, so members can be deleted while the caller walks a slice', () => {
    const wheel = new HeartbeatWheel<string>(1);
    wheel.add('a');
    wheel.add('b');
    const slice = wheel.turn();
    for (const member of slice) wheel.delete(member);
    expect(slice).toEqual(['a', 'b']);
    expect(wheel.turn()).toEqual([]);
  });

  it('cuts a period into ticks of about the requested length, never fewer than one', () => {
    expect(HeartbeatWheel.slicesFor(15_000, 100)).toBe(150);
    expect(HeartbeatWheel.slicesFor(250, 100)).toBe(3);
    expect(HeartbeatWheel.slicesFor(20, 100)).toBe(1);
    expect(() => new HeartbeatWheel(0)).toThrow(RangeError);
  });
});
