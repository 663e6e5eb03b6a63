import { describe, expect, it } from 'vitest';
import { findNestedQuantifier } from './regex-safety.js';

describe('findNestedQuantifier', () => {
  it('finds a repeated group around an unbounded quantifier, at the group', () => {
    expect(findNestedQuantifier('(a+)+')).toBe(0);
    expect(findNestedQuantifier('^x(.*)*$')).toBe(2);
    expect(findNestedQuantifier(String.raw`(\w+\s?)*`)).toBe(0);
    expect(findNestedQuantifier('(?:ab*c){2,}')).toBe(0);
    expect(findNestedQuantifier('((a)+b)*')).toBe(0);
    expect(findNestedQuantifier('(a{1,})+?')).toBe(0);
    expect(findNestedQuantifier('z(x(y*)){3,9}')).toBe(1);
  });

  it('lets ordinary patterns through', () => {
    for (const pattern of [
      String.raw`rm\s+-rf|git\s+push\s+--force`,
      String.raw`\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+)?(ba|z)?sh\b`,
      String.raw`\b(kubectl\s+(rollout|delete|scale|drain)|terraform\s+(apply|destroy))\b`,
      '(foo|bar)+',
      '(a+){1}',
      '(ab){2,5}',
      '[(+*)]+',
      String.raw`\(a+\)+`,
      '(?<name>x+)y',
      '^bash$',
    ]) {
      expect(findNestedQuantifier(pattern), pattern).toBeUndefined();
    }
  });
});
