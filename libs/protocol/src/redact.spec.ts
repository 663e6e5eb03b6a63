import { describe, expect, it } from 'vitest';
import { REDACTED, isRedactionMarker, isSecretKey, normalizeKeyName, redactSecrets, redactText, redactionMarker } from './redact.js';

describe('isSecretKey', () => {
  it('matches the listed names and suffixes in any spelling', () => {
    for (const key of [
      'authorization',
      'Authorization',
      'token',
      'GITHUB_TOKEN',
      'accessToken',
      'refresh-token',
      'password',
      'db.password',
      'secret',
      'client_secret',
      'api_key',
      'X-Api-Key',
      'xApiKey',
      'APIKey',
      'cookie',
      'Set-Cookie',
      'private_key',
    ]) {
      expect(isSecretKey(key), key).toBe(true);
    }
  });

  it('leaves ordinary names alone, digests included', () => {
    for (const key of ['tokens', 'max_tokens', 'token_sha256', 'tokenStatus', 'secretName', 'command', 'input', 'author', 'id']) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });

  it('answers the same for a key asked again, and after more distinct keys than it remembers', () => {
    expect([isSecretKey('accessToken'), isSecretKey('accessToken'), isSecretKey('command'), isSecretKey('command')]).toEqual([true, true, false, false]);
    for (let i = 0; i < 5000; i++) isSecretKey(`field_${i}`);
    expect([isSecretKey('accessToken'), isSecretKey('command'), isSecretKey('field_7_token')]).toEqual([true, false, true]);
  });

  it('normalises camelCase, separators and case', () => {
    expect(normalizeKeyName('xApiKey')).toBe('x_api_key');
    expect(normalizeKeyName('X-Api.Key')).toBe('x_api_key');
  });
});

describe('redactText', () => {
  it('blanks bearer and basic credentials, URL passwords and secret query parameters', () => {
    expect(redactText('curl -H "Authorization: Bearer abc.DEF-123_x~y+z/="')).toBe(`curl -H "Authorization: Bearer ${REDACTED}"`);
    expect(redactText('Basic dXNlcjpwYXNz')).toBe(`Basic ${REDACTED}`);
    expect(redactText('redis://default:hunter2@cache:6379/0')).toBe(`redis://default:${REDACTED}@cache:6379/0`);
    expect(redactText('/v1/agents?token=ahp_secret&x=1')).toBe(`/v1/agents?token=${REDACTED}&x=1`);
    expect(redactText('nothing to see')).toBe('nothing to see');
  });
});

describe('redactSecrets', () => {
  it('replaces secret-named values by the marker given (a keyed hash in the hook queue), whatever their type', () => {
    const seen: unknown[] = [];
    const marker = (value: unknown) => {
      seen.push(value);
      return redactionMarker(String(seen.length).padStart(32, '0'));
    };
    const out = redactSecrets({ sql: 'select 1', access_token: 'tenant-A', options: { auth_token: { role: 'reader' } } }, { credentialsInText: false, marker });
    expect(out).toEqual({ sql: 'select 1', access_token: `[redacted:${'0'.repeat(31)}1]`, options: { auth_token: `[redacted:${'0'.repeat(31)}2]` } });
    expect(seen).toEqual(['tenant-A', { role: 'reader' }]);
    expect([REDACTED, out.access_token].every(isRedactionMarker)).toBe(true);
    expect(['[redacted:xyz]', '[redacted]x', 'redacted', 42].some(isRedactionMarker)).toBe(false);
    expect(() => redactionMarker('XYZ')).toThrow(TypeError);
  });

  it('replaces secret fields at any depth and keeps everything else', () => {
    const input = {
      tool: 'Bash',
      input: { command: 'ls', env: { GITHUB_TOKEN: 'ghp_x', HOME: '/root' } },
      headers: [{ authorization: 'Bearer t' }, { accept: 'json' }],
      password: { nested: 'whole value goes' },
      token: null,
    };
    expect(redactSecrets(input)).toEqual({
      tool: 'Bash',
      input: { command: 'ls', env: { GITHUB_TOKEN: REDACTED, HOME: '/root' } },
      headers: [{ authorization: REDACTED }, { accept: 'json' }],
      password: REDACTED,
      token: null,
    });
    expect(input.input.env.GITHUB_TOKEN).toBe('ghp_x');
  });

  it('returns the same references where nothing changed', () => {
    const clean = { a: { b: [1, 2, { c: 'd' }] }, e: 'f' };
    expect(redactSecrets(clean)).toBe(clean);
    const mixed = { keep: { x: 1 }, secret: 's' };
    expect(redactSecrets(mixed).keep).toBe(mixed.keep);
  });

  it('can leave text alone for data oracles evaluate', () => {
    const context = { command: 'curl -H "Authorization: Bearer abc"', api_key: 'k' };
    expect(redactSecrets(context, { credentialsInText: false })).toEqual({ command: context.command, api_key: REDACTED });
  });

  it('passes errors and other non-plain values through, survives cycles and keeps __proto__ a plain field', () => {
    const error = new Error('boom');
    expect(redactSecrets({ error }).error).toBe(error);
    const cyclic: Record<string, unknown> = { token: 'x' };
    cyclic['self'] = cyclic;
    expect(redactSecrets(cyclic)).toEqual({ token: REDACTED, self: '[Circular]' });
    const hostile = JSON.parse('{"__proto__":{"password":"p"},"ok":1}') as Record<string, unknown>;
    const redacted = redactSecrets(hostile);
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(redacted, '__proto__')?.value).toEqual({ password: REDACTED });
    expect(({} as Record<string, unknown>)['password']).toBeUndefined();
  });

  it('replaces nesting beyond 64 levels whole', () => {
    let deep: unknown = { token: 'x' };
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(JSON.stringify(redactSecrets(deep))).not.toContain('"x"');
  });
});
