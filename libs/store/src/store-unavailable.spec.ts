import { ClientClosedError, ClientOfflineError, ConnectionTimeoutError, ErrorReply, SocketClosedUnexpectedlyError, TimeoutError } from 'redis';
import { describe, expect, it } from 'vitest';
import { StoreDataError } from './errors.js';
import { isStoreUnavailable } from './store-unavailable.js';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('isStoreUnavailable', () => {
  it('recognises node-redis connection errors and command timeouts', () => {
    for (const error of [new ClientClosedError(), new ClientOfflineError(), new ConnectionTimeoutError(), new SocketClosedUnexpectedlyError(), new TimeoutError()]) {
      expect(isStoreUnavailable(error), error.constructor.name).toBe(true);
    }
  });

  it('recognises socket errors, also inside an AggregateError or a cause chain', () => {
    expect(isStoreUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'))).toBe(true);
    expect(isStoreUnavailable(new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')]))).toBe(true);
    expect(isStoreUnavailable(new Error('open failed', { cause: withCode('reset', 'ECONNRESET') }))).toBe(true);
  });

  it('recognises replies of a Redis that cannot serve yet, not those of a bad command', () => {
    expect(isStoreUnavailable(new ErrorReply('LOADING Redis is loading the dataset in memory'))).toBe(true);
    expect(isStoreUnavailable(new ErrorReply('BUSY Redis is busy running a script'))).toBe(true);
    expect(isStoreUnavailable(new ErrorReply('READONLY You can\'t write against a read only replica.'))).toBe(true);
    expect(isStoreUnavailable(new ErrorReply('ERR wrong number of arguments for \'get\' command'))).toBe(false);
    expect(isStoreUnavailable(new ErrorReply('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
  });

  it('does not call bugs, bad data or non-errors unavailability', () => {
    expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isStoreUnavailable(new StoreDataError('ahp:req:1', 'does not parse'))).toBe(false);
    expect(isStoreUnavailable(withCode('no such file', 'ENOENT'))).toBe(false);
    expect(isStoreUnavailable('ECONNREFUSED')).toBe(false);
    expect(isStoreUnavailable(undefined)).toBe(false);
  });

  it('stops following causes after a few levels (a cycle cannot loop)', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(isStoreUnavailable(a)).toBe(false);
  });
});
