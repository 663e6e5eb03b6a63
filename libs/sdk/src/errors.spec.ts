import { CLOSE_CODES, makeError } from '@ahp/protocol/wire';
import { describe, expect, it } from 'vitest';
import { AhpClientError, errorForCloseCode, isAhpClientError } from './errors.js';

describe('AhpClientError', () => {
  it('takes retryable from the protocol table for protocol codes and from the client table otherwise', () => {
    expect(new AhpClientError('E_TIMEOUT', 'late').retryable).toBe(true);
    expect(new AhpClientError('E_INVALID_ACTION', 'no').retryable).toBe(false);
    expect(new AhpClientError('E_CLOSED', 'bye').retryable).toBe(false);
  });

  it('keeps code, retryable, details and retry hint of a gateway error', () => {
    const error = AhpClientError.fromProtocol(makeError('E_PLAN_PENDING', 'plan first', { request_id: 'r1' }, { retryAfterMs: 100 }));
    expect(error).toMatchObject({ code: 'E_PLAN_PENDING', retryable: true, details: { request_id: 'r1' }, retryAfterMs: 100 });
    expect(isAhpClientError(error)).toBe(true);
    expect(isAhpClientError(new Error('plain'))).toBe(false);
  });
});

describe('errorForCloseCode', () => {
  it('maps the close codes that have a protocol meaning to that code', () => {
    expect(errorForCloseCode(CLOSE_CODES.UNAUTHORIZED, 'token expired')).toMatchObject({ code: 'E_UNAUTHORIZED', closeCode: 4401 });
    expect(errorForCloseCode(CLOSE_CODES.FORBIDDEN, '')).toMatchObject({ code: 'E_FORBIDDEN', closeCode: 4403 });
    expect(errorForCloseCode(CLOSE_CODES.UNSUPPORTED_VERSION, '')).toMatchObject({ code: 'E_UNSUPPORTED_VERSION' });
  });

  it('reports every other final close as E_DISCONNECTED with the code in details', () => {
    const error = errorForCloseCode(CLOSE_CODES.SESSION_ENDED, 'shutdown approved');
    expect(error).toMatchObject({ code: 'E_DISCONNECTED', closeCode: 4410 });
    expect(error.details).toMatchObject({ close_code: 4410, close_name: 'SESSION_ENDED', reason: 'shutdown approved' });
  });
});
