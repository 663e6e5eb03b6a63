import { describe, expect, it } from 'vitest';
import { parseDuration, parseRange, parseWeights } from './cli-args.js';
import { EQUAL_WEIGHTS } from './options.js';

describe('parseDuration', () => {
  it('reads ms, s, m and bare seconds', () => {
    expect(parseDuration('1500ms')).toBe(1500);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('2.5m')).toBe(150_000);
    expect(parseDuration('45')).toBe(45_000);
    expect(() => parseDuration('ten minutes')).toThrow(TypeError);
  });
});

describe('parseRange', () => {
  it('reads min-max or a single value', () => {
    expect(parseRange('2000-5000')).toEqual({ min: 2000, max: 5000 });
    expect(parseRange('300')).toEqual({ min: 300, max: 300 });
    expect(() => parseRange('5-2')).toThrow(/ends before/);
    expect(() => parseRange('a-b')).toThrow(TypeError);
  });
});

describe('parseWeights', () => {
  it('overrides named kinds and keeps the others', () => {
    expect(parseWeights('kill-worker=3,restart-redis=0', EQUAL_WEIGHTS)).toEqual({ ...EQUAL_WEIGHTS, 'kill-worker': 3, 'restart-redis': 0 });
  });

  it('turns a plain list into "only these"', () => {
    expect(parseWeights('kill-gateway, drop-sockets', EQUAL_WEIGHTS)).toEqual({
      'kill-worker': 0,
      'kill-gateway': 1,
      'stop-worker': 0,
      'restart-redis': 0,
      'drop-sockets': 1,
    });
  });

  it('refuses unknown kinds and bad weights', () => {
    expect(() => parseWeights('kill-everything', EQUAL_WEIGHTS)).toThrow(/unknown fault kind/);
    expect(() => parseWeights('kill-worker=-1', EQUAL_WEIGHTS)).toThrow(/>= 0/);
    expect(() => parseWeights('kill-worker=', EQUAL_WEIGHTS)).toThrow(/>= 0/);
  });
});
