import { describe, expect, it } from 'vitest';
import { canonicalJson, describeIssues } from './validate.js';

describe('canonicalJson', () => {
  it('is equal for values that differ only in key order, at any depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ y: 1, x: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"x":2,"y":1}]},"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });
});

describe('describeIssues', () => {
  it('joins paths and messages, five at most', () => {
    const issues = Array.from({ length: 7 }, (_, i) => ({ path: ['a', i], message: `bad ${i}` }));
    expect(describeIssues([{ path: [], message: 'top' }])).toBe('top');
    expect(describeIssues(issues).split('; ')).toHaveLength(5);
    expect(describeIssues(issues)).toMatch(/^a\.0: bad 0/);
  });
});
