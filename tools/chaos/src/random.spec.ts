import { describe, expect, it } from 'vitest';
import { Rng, parseSeed } from './random.js';

describe('Rng', () => {
  it('gives the same sequence for the same seed and another one for another seed', () => {
    const draw = (seed: number) => {
      const rng = new Rng(seed);
      return Array.from({ length: 5 }, () => rng.next());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('keeps int() inside the range, both ends reachable', () => {
    const rng = new Rng(1);
    const seen = new Set(Array.from({ length: 500 }, () => rng.int({ min: 3, max: 6 })));
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });

  it('never draws a key of weight 0 and follows the weights roughly', () => {
    const rng = new Rng(7);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 4000; i++) counts[rng.weighted({ a: 3, b: 1, c: 0 })] += 1;
    expect(counts.c).toBe(0);
    expect(counts.a / counts.b).toBeGreaterThan(2.4);
    expect(counts.a / counts.b).toBeLessThan(3.6);
  });

  it('refuses weights that are all zero', () => {
    expect(() => new Rng(1).weighted({ a: 0 })).toThrow(RangeError);
  });

  it('shuffles into a permutation without touching the input', () => {
    const items = [1, 2, 3, 4, 5, 6];
    const shuffled = new Rng(9).shuffle(items);
    expect([...shuffled].sort()).toEqual(items);
    expect(items).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('forks independent, reproducible streams', () => {
    const a = new Rng(5).fork('faults').next();
    expect(new Rng(5).fork('faults').next()).toBe(a);
    expect(new Rng(5).fork('workload').next()).not.toBe(a);
  });
});

describe('parseSeed', () => {
  it('reads decimal and hex seeds and refuses anything else', () => {
    expect(parseSeed('123')).toBe(123);
    expect(parseSeed('0xff')).toBe(255);
    expect(() => parseSeed('-1')).toThrow(TypeError);
    expect(() => parseSeed('4294967296')).toThrow(TypeError);
    expect(() => parseSeed('abc')).toThrow(TypeError);
  });
});
