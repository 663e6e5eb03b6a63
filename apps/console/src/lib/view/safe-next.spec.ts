import { describe, expect, it } from 'vitest';
import { safeNextPath } from './safe-next';

describe('safeNextPath', () => {
  it('keeps a path of this console, with its query', () => {
    expect(safeNextPath('/approvals')).toBe('/approvals');
    expect(safeNextPath('/signals?intensity=block&agent=alice')).toBe('/signals?intensity=block&agent=alice');
  });

  it('sends anything that could leave the console to the fleet', () => {
    for (const value of [undefined, ['/a', '/b'], '', 'approvals', '//evil.example', '/\\evil.example', '/\\/evil.example', 'https://evil.example', 'javascript:alert(1)', '/a b', '/x\\y']) {
      expect(safeNextPath(value)).toBe('/');
    }
  });
});
