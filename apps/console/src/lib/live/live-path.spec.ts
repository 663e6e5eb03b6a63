import { MAX_LIVE_AGENTS } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { livePath } from './live-path';

describe('livePath', () => {
  it('follows the union of the views’ agents, sorted, and nobody when the views show none', () => {
    expect(livePath([['bob', 'alice'], ['alice', 'carol']])).toBe('/api/live?agents=alice%2Cbob%2Ccarol');
    expect(livePath([[]])).toBe('/api/live?agents=');
  });

  it('follows every agent when no view said what it shows, when one asks for all, or when the union is longer than the gateway accepts', () => {
    expect(livePath([])).toBe('/api/live');
    expect(livePath([['alice'], 'all'])).toBe('/api/live');
    const many = Array.from({ length: MAX_LIVE_AGENTS + 1 }, (_, i) => `agent-${i}`);
    expect(livePath([many])).toBe('/api/live');
    expect(livePath([many.slice(0, MAX_LIVE_AGENTS)])).toMatch(/^\/api\/live\?agents=/);
  });
});
