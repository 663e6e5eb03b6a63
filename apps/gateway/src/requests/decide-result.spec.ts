import type { ProtocolState } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { decideResult } from './decide-result.js';

const pending: ProtocolState = {
  request_id: 'req_7',
  type: 'shutdown',
  sender: 'lead',
  target: { kind: 'agent', agent: 'alice' },
  status: 'pending',
  payload: {},
  created_at: '2026-02-09T10:00:00Z',
  updated_at: '2026-02-09T10:00:00Z',
};
const approved: ProtocolState = { ...pending, status: 'approved', decided_by: 'alice', decided_at: '2026-02-09T10:01:00Z', updated_at: '2026-02-09T10:01:00Z' };

describe('decideResult', () => {
  it('succeeds for a first and for a repeated identical decision', () => {
    expect(decideResult('req_7', { outcome: 'applied', state: approved })).toEqual({ ok: true, outcome: 'applied', state: approved });
    expect(decideResult('req_7', { outcome: 'already_decided', state: approved })).toEqual({ ok: true, outcome: 'already_decided', state: approved });
  });

  it('names the winner of a conflict', () => {
    const result = decideResult('req_7', { outcome: 'conflict', state: approved });
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'E_CONFLICT',
        message: 'request req_7 was already approved by alice',
        retryable: false,
        details: { request_id: 'req_7', status: 'approved', decided_by: 'alice', decided_at: '2026-02-09T10:01:00Z' },
      },
    });
  });

  it('maps expiry, a wrong response type and an unknown id', () => {
    const expired: ProtocolState = { ...pending, status: 'expired', decided_at: '2026-02-09T10:05:00Z' };
    expect(decideResult('req_7', { outcome: 'not_pending', state: expired })).toMatchObject({
      ok: false,
      error: { code: 'E_CONFLICT', details: { status: 'expired' } },
    });
    expect(decideResult('req_7', { outcome: 'type_mismatch', state: pending, expected: 'shutdown_response' })).toMatchObject({
      ok: false,
      error: { code: 'E_TYPE_MISMATCH', details: { request_type: 'shutdown', expected: 'shutdown_response' } },
    });
    expect(decideResult('req_9', { outcome: 'not_found' })).toMatchObject({ ok: false, error: { code: 'E_NOT_FOUND' } });
  });
});
