import { describe, expect, it } from 'vitest';
import { ConfigVersionSummarySchema, StoredConfigVersionSchema } from './config-version.js';

const stored = {
  version: 3,
  source: 'hooks: {}\n',
  digest: 'a'.repeat(64),
  published_at: '2026-02-09T10:00:00.000Z',
  published_by: 'alice',
  config: { hooks: {} },
};

describe('StoredConfigVersionSchema', () => {
  it('accepts a stored version whose config is a hooks configuration, and nothing else', () => {
    expect(StoredConfigVersionSchema.parse(stored)).toEqual(stored);
    expect(StoredConfigVersionSchema.safeParse({ ...stored, config: { hooks: { 'pre-deploy': { oracles: [] } } } }).success).toBe(false);
    expect(StoredConfigVersionSchema.safeParse({ ...stored, version: 0 }).success).toBe(false);
    expect(StoredConfigVersionSchema.safeParse({ ...stored, digest: 'xyz' }).success).toBe(false);
    expect(StoredConfigVersionSchema.safeParse({ ...stored, published_by: '' }).success).toBe(false);
  });

  it('reads a summary from a stored version, ignoring the text, the config and fields it does not know', () => {
    expect(ConfigVersionSummarySchema.parse({ ...stored, added_later: true })).toEqual({
      version: 3,
      digest: stored.digest,
      published_at: stored.published_at,
      published_by: 'alice',
    });
  });
});
