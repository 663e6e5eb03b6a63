import { describe, expect, it } from 'vitest';
import { AdmissionLane } from './admission-lane.js';

/** A task that stays running until released. */
function gate(): { promise: Promise<void>; open: () => void } {
  const opener: { open?: () => void } = {};
  const promise = new Promise<void>((resolve) => {
    opener.open = resolve;
  });
  return { promise, open: () => opener.open?.() };
}

describe('AdmissionLane', () => {
  it('runs at most `limit` tasks at once and starts the waiting ones in order as places free up', async () => {
    const lane = new AdmissionLane(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, index) =>
      lane.run(async () => {
        started.push(index);
        await g.promise;
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(lane.load).toEqual({ running: 2, waiting: 2 });

    gates[1]!.open();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);

    gates[0]!.open();
    gates[2]!.open();
    gates[3]!.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(lane.load).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the place of a task that throws', async () => {
    const lane = new AdmissionLane(1);
    await expect(lane.run(() => Promise.reject(new Error('redis down')))).rejects.toThrow('redis down');
    await expect(lane.run(() => Promise.resolve('next'))).resolves.toBe('next');
    expect(lane.load).toEqual({ running: 0, waiting: 0 });
  });
});
