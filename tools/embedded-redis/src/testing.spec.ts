import { describe, expect, it } from 'vitest';
import { TEST_KEY_ROOT, uniqueKeyPrefix } from './testing.js';

describe('uniqueKeyPrefix', () => {
  it('is ahp:test:<random>: without a name', () => {
    expect(uniqueKeyPrefix()).toMatch(/^ahp:test:[0-9a-f]{12}:$/);
  });

  it('carries a readable slug of the test name', () => {
    expect(uniqueKeyPrefix('Approvals survive a Redis restart!')).toMatch(/^ahp:test:approvals-survive-a-redis-restart:[0-9a-f]{12}:$/);
    expect(uniqueKeyPrefix('x'.repeat(100)).length).toBeLessThanOrEqual(TEST_KEY_ROOT.length + 40 + 14);
    expect(uniqueKeyPrefix('***')).toMatch(/^ahp:test:[0-9a-f]{12}:$/);
  });

  it('differs on every call, even for the same name', () => {
    const prefixes = new Set(Array.from({ length: 200 }, () => uniqueKeyPrefix('same')));
    expect(prefixes.size).toBe(200);
  });
});
