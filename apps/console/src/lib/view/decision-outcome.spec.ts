import { describe, expect, it } from 'vitest';
import { makeError, type ProtocolState } from '@ahp/protocol';
import { noticeForDecision, noticeForRefusal } from './decision-outcome';

const decided = (overrides: Partial<ProtocolState>): ProtocolState =>
  ({
    request_id: 'req_1',
    type: 'tool_approval',
    sender: 'alice',
    target: { kind: 'operators' },
    status: 'approved',
    created_at: '2026-01-01T10:00:00.000Z',
    updated_at: '2026-01-01T10:02:30.000Z',
    decided_at: '2026-01-01T10:02:30.000Z',
    decided_by: 'op-maria',
    payload: { tool: 'bash', input: { command: 'ls' }, input_digest: 'a'.repeat(64) },
    ...overrides,
  }) as ProtocolState;

describe('decision notices', () => {
  it('confirms a decision this operator made', () => {
    expect(noticeForDecision({ outcome: 'applied', request: decided({ decided_by: 'op-me' }) }, 'op-me', true)).toEqual({ tone: 'success', text: 'Approved.' });
    expect(noticeForDecision({ outcome: 'applied', request: decided({ decided_by: 'op-me', modified_input: { command: 'ls -la' } }) }, 'op-me', true).text).toBe('Approved with your edited input.');
  });

  it('says when a coding agent\'s permission prompt had stopped waiting before the decision', () => {
    const notice = noticeForDecision({ outcome: 'applied', request: decided({ decided_by: 'op-me' }), after_prompt_fallback: '2026-01-01T10:01:00.000Z' }, 'op-me', true);
    expect(notice).toEqual({
      tone: 'warning',
      text: "Approved. The agent's permission prompt had already stopped waiting (2026-01-01 10:01:00 UTC); your decision applies when it makes the same call again.",
    });
  });

  it('says who decided first when the same decision was already made by someone else', () => {
    const notice = noticeForDecision({ outcome: 'already_decided', request: decided({}) }, 'op-me', true);
    expect(notice).toEqual({ tone: 'warning', text: 'Already approved by op-maria at 2026-01-01 10:02:30 UTC. Your decision was not applied.' });
  });

  it('says who decided the other way on a conflict', () => {
    const error = makeError('E_CONFLICT', 'request req_1 was already approved by op-maria', {
      request_id: 'req_1',
      status: 'approved',
      decided_by: 'op-maria',
      decided_at: '2026-01-01T10:02:30.000Z',
    });
    expect(noticeForRefusal(error)).toEqual({ tone: 'warning', text: 'Already approved by op-maria at 2026-01-01 10:02:30 UTC. Your decision was refused.' });
    expect(noticeForRefusal(makeError('E_CONFLICT', 'expired', { status: 'expired', decided_at: '2026-01-01T10:02:30.000Z' })).text).toBe('Already expired at 2026-01-01 10:02:30 UTC. Your decision was refused.');
  });

  it('reports a forbidden decision as an error', () => {
    expect(noticeForRefusal(makeError('E_FORBIDDEN', 'role viewer may not decide'))).toEqual({ tone: 'error', text: 'Not allowed: role viewer may not decide' });
  });
});
