import type { ReplayRecord } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { ratio, syntheticAppends } from './replay-contention.js';

const base = { agent: { id: 'a1', kind: 'claude-code' }, session_id: 's1', at: 1, context_bytes: 10 } as const;
const allowed = { ...base, hook_id: '00000000-0000-4000-8000-000000000001', trigger: 'pre-tool-use', config_version: 3, context: { tool: 'bash' }, decision: { level: 'allow', decided_by: 'oracles', rules: [], approval: false } } as unknown as ReplayRecord;
const blocked = { ...base, hook_id: '00000000-0000-4000-8000-000000000002', trigger: 'pre-tool-use', context: { tool: 'rm' }, decision: { level: 'block', decided_by: 'oracles', rules: ['g/r'], approval: false } } as unknown as ReplayRecord;

describe('the hooks the replay phase records', () => {
  it('copies the samples round robin under new ids, one millisecond apart from the start', () => {
    let n = 0;
    const appends = syntheticAppends([allowed, blocked], 5, 1_000, () => `id-${n++}`);
    expect(appends.map((a) => a.hookId)).toEqual(['id-0', 'id-1', 'id-2', 'id-3', 'id-4']);
    expect(appends.map((a) => a.at)).toEqual([1_000, 1_001, 1_002, 1_003, 1_004]);
    expect(appends.map((a) => a.context)).toEqual([{ tool: 'bash' }, { tool: 'rm' }, { tool: 'bash' }, { tool: 'rm' }, { tool: 'bash' }]);
    expect(appends.every((a) => a.decision.hook_id === a.hookId)).toBe(true);
  });

  it("keeps the recorded decision's level, so the live rules replayed change nothing", () => {
    const [allow, block] = syntheticAppends([allowed, blocked], 2, 0);
    expect(allow?.decision).toMatchObject({ allowed: true, intensity: null, config_version: 3 });
    expect(allow?.configVersion).toBe(3);
    expect(block?.decision).toMatchObject({ allowed: false, intensity: 'block' });
    expect(block?.configVersion).toBeUndefined();
  });

  it('refuses to copy nothing', () => {
    expect(() => syntheticAppends([], 1, 0)).toThrow(/no recorded hooks/);
  });
});

describe('with / without', () => {
  it('is rounded to two decimals and null over zero', () => {
    expect(ratio(2, 3)).toBe(1.5);
    expect(ratio(3, 1)).toBe(0.33);
    expect(ratio(0, 1)).toBeNull();
  });
});
