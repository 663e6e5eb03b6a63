/**
 * Warn rules are refused at pre-tool-use today because the protocol allows no prompt there. This
 * spec pretends the trigger table allows it, to pin down what warn rules produce once it does.
 */
import type * as Protocol from '@ahp/protocol';
import type { JsonValue } from '@ahp/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { OracleVerdict } from './oracle.js';
import { createPermissionCheck } from './permission-check.js';

vi.mock('@ahp/protocol', async (importOriginal) => ({
  ...(await importOriginal<typeof Protocol>()),
  isIntensityAllowed: () => true,
}));

function check(input: JsonValue, rules: Parameters<typeof createPermissionCheck>[0]): readonly OracleVerdict[] {
  return createPermissionCheck(rules).evaluate(
    {
      hookId: '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b',
      trigger: 'pre-tool-use',
      context: { tool: { name: 'Bash', input } },
      agent: { id: 'agent-1', name: 'Agent One' },
      sessionId: 'session-1',
    },
    { signal: new AbortController().signal },
  ) as readonly OracleVerdict[];
}

describe('permission-check: warn rules where prompt is allowed', () => {
  it('answers a prompt verdict per matching warn rule, after the rewrite', () => {
    const verdicts = check(
      { command: 'git push --force' },
      {
        rewrite: [{ input: '--force($|[^-])', replace: '--force-with-lease$1', reason: 'lease' }],
        warn: [
          { name: 'force', input: '--force', reason: 'force push', severity: 'high', suggestions: ['use a branch'], continue_allowed: false },
          { input: 'git', reason: 'git in use' },
          { input: 'svn', reason: 'never matches' },
        ],
      },
    );
    expect(verdicts.map((v) => v.intensity)).toEqual(['control', 'prompt', 'prompt']);
    expect(verdicts[1]).toEqual({
      intensity: 'prompt',
      rule: 'force',
      payload: {
        level: 'prompting',
        decision: 'warn',
        severity: 'high',
        message: 'force push',
        suggestions: ['use a branch'],
        continue_allowed: false,
      },
    });
    expect(verdicts[2]).toMatchObject({ rule: 'warn[1]', payload: { severity: 'medium', suggestions: [], continue_allowed: true } });
  });
});
