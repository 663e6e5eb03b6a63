import type { ConfigReplayReport } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { contextSummary, formatReplayReport } from './config-replay-command.js';

const decision = (level: 'allow' | 'block', rules: string[] = []) => ({ level, decided_by: 'oracles' as const, rules, approval: false });

const REPORT: ConfigReplayReport = {
  since: '2026-11-25T07:00:00.000Z',
  until: '2026-11-26T07:00:00.000Z',
  total: 3,
  unchanged: 2,
  changed: 1,
  rules_changed: 0,
  skipped: { oversize: 1, unreadable: 0 },
  truncated: false,
  recorded_versions: [{ version: 3, count: 3 }],
  transitions: [{ from: 'allow', to: 'block', count: 1 }],
  by_rule: [{ rule: 'shell/force-push', changed: 1, transitions: [{ from: 'allow', to: 'block', count: 1 }] }],
  by_agent: [
    { agent_id: 'alice', total: 2, changed: 1, transitions: [{ from: 'allow', to: 'block', count: 1 }] },
    { agent_id: 'bob', total: 1, changed: 0, transitions: [] },
  ],
  examples: [
    {
      hook_id: '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b',
      agent_id: 'alice',
      session_id: 's-1',
      trigger: 'pre-tool-use',
      at: '2026-11-25T08:00:00.000Z',
      before: decision('allow'),
      after: decision('block', ['shell/force-push']),
      context: { tool: { name: 'bash', input: { command: 'git push --force origin main' } } },
    },
  ],
  approvals: { count: 0, examples: [] },
  oracle_errors: [],
};

describe('ahp config replay output', () => {
  it('prints the summary, the transitions, the rules, the agents that change and the examples', () => {
    const text = formatReplayReport(REPORT, 'candidate.yaml');
    expect(text).toContain('3 hooks replayed: 1 would change, 2 unchanged');
    expect(text).toContain('skipped: 1 recorded without context (over the size cap), 0 unreadable');
    expect(text).toContain('recorded under: version 3 (3)');
    expect(text).toMatch(/allow → block\s+1/);
    expect(text).toMatch(/shell\/force-push\s+1\s+allow→block 1/);
    expect(text).toMatch(/alice\s+2\s+1/);
    expect(text).not.toMatch(/^bob/m);
    expect(text).toContain('bash: git push --force origin main');
  });

  it('summarises a context without a tool call as shortened JSON', () => {
    expect(contextSummary({ tool: { name: 'write', input: { path: 'a.txt' } } })).toBe('write: {"path":"a.txt"}');
    expect(contextSummary({ files: { changed_count: 40 }, note: 'x'.repeat(200) })).toHaveLength(80);
  });
});
