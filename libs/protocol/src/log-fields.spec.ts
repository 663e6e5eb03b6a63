import { describe, expect, it } from 'vitest';
import { prepareLogFields, redactLogText, serializeError } from './log-fields.js';
import { REDACTED } from './redact.js';

describe('prepareLogFields', () => {
  it('returns the same object when nothing needs changing', () => {
    const fields = { agentId: 'alice', correlationId: '0b5f0d0e', durationMs: 3 };
    expect(prepareLogFields(fields)).toBe(fields);
  });

  it('blanks secret fields at any depth and credentials inside text', () => {
    const prepared = prepareLogFields({ token: 'ahp_secret', headers: { authorization: 'Bearer abc' }, note: 'url redis://u:pw@host:6379' });
    expect(prepared['token']).toBe(REDACTED);
    expect(prepared['headers']).toEqual({ authorization: REDACTED });
    expect(String(prepared['note'])).not.toContain('pw@');
  });

  it('renames the keys the logger writes itself and keeps __proto__ as a plain field', () => {
    const fields = JSON.parse('{"msg":"x","level":"y","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const prepared = prepareLogFields(fields);
    expect(Object.keys(prepared)).toEqual(['field_msg', 'field_level', '__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('serializes errors with their code and cause', () => {
    const error = Object.assign(new Error('outer', { cause: new Error('inner') }), { code: 'E_X' });
    expect(prepareLogFields({ error })['error']).toMatchObject({ name: 'Error', message: 'outer', code: 'E_X', cause: { message: 'inner' } });
    expect(serializeError(new Error('plain'))).toMatchObject({ name: 'Error', message: 'plain' });
  });
});

describe('redactLogText', () => {
  it('leaves plain ids untouched and blanks bearer tokens', () => {
    expect(redactLogText('gw-1')).toBe('gw-1');
    expect(redactLogText('sent Authorization: Bearer abc.def')).not.toContain('abc.def');
  });
});
