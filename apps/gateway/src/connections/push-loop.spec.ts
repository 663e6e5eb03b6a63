import { describe, expect, it } from 'vitest';
import { PushLoop } from './push-loop.js';

describe('PushLoop', () => {
  it('runs one pass at a time, and one more pass for any number of notices during a pass', async () => {
    let passes = 0;
    let release: () => void = () => undefined;
    const loop = new PushLoop(async () => {
      passes += 1;
      if (passes === 1) await new Promise<void>((resolve) => (release = resolve));
      return true;
    });
    loop.trigger();
    loop.trigger();
    loop.trigger();
    expect(passes).toBe(1);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(passes).toBe(2);
    loop.trigger();
    await new Promise((resolve) => setImmediate(resolve));
    expect(passes).toBe(3);
  });

  it('stops when a pass says delivery must stop, and starts again on the next notice', async () => {
    let passes = 0;
    const loop = new PushLoop(() => Promise.resolve(++passes > 1));
    loop.trigger();
    await new Promise((resolve) => setImmediate(resolve));
    loop.trigger();
    await new Promise((resolve) => setImmediate(resolve));
    expect(passes).toBe(2);
  });
});
