import type { AgentEvent, VerificationResult } from '@ahp/protocol/wire';
import { describe, expect, it } from 'vitest';
import { reportVerification, verificationContext } from './verification.js';

const failure: VerificationResult = {
  ok: false,
  type: 'test_failure',
  summary: '2 tests failed',
  details: [
    { file: 'tests/test_auth.py', line: 45, error: 'AssertionError: expected 3600 but got 1800' },
    { file: 'tests/test_auth.py', line: 60, error: 'KeyError: user' },
  ],
  suggestion: 'Check the config.py default value.',
};

describe('reportVerification', () => {
  it('reports the result for its step', async () => {
    const events: AgentEvent[] = [];
    const parsed = await reportVerification({ report: async (e) => void events.push(e) }, failure, { stepId: 'test' });
    expect(parsed).toEqual(failure);
    expect(events).toEqual([{ kind: 'verification', result: failure, step_id: 'test' }]);
  });

  it('rejects a result that breaks the invariants and reports nothing', async () => {
    const events: AgentEvent[] = [];
    const bad = { ok: true, type: 'test_failure', summary: 'x', details: [] } as VerificationResult;
    await expect(reportVerification({ report: async (e) => void events.push(e) }, bad)).rejects.toThrow(/passed/);
    expect(events).toEqual([]);
  });
});

describe('verificationContext', () => {
  it('gives test-gate the failed count', () => {
    expect(verificationContext(failure)).toEqual({ tests: { failed_count: 2 } });
    expect(verificationContext({ ok: false, type: 'test_failure', summary: 'crashed', details: [] })).toEqual({ tests: { failed_count: 1 } });
    expect(verificationContext({ ok: true, type: 'passed', summary: 'ok', details: [] })).toEqual({ tests: { failed_count: 0 } });
  });

  it('says nothing about tests for other checks', () => {
    expect(verificationContext({ ok: false, type: 'lint_failure', summary: 'lint', details: [] })).toEqual({});
  });
});
