import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_LENGTH, isHttps, sessionCookieOptions, tokenFromSignInBody } from './session-cookie';

describe('tokenFromSignInBody', () => {
  it('takes the trimmed token of { token }', () => {
    expect(tokenFromSignInBody({ token: '  ahp_abc-DEF_123 \n' })).toBe('ahp_abc-DEF_123');
  });

  it('refuses anything else', () => {
    for (const body of [null, 'ahp_x', [], {}, { token: 1 }, { token: '' }, { token: '   ' }, { token: 'a b' }, { token: 'ahp_é' }, { token: 'x', other: 1 }, { token: 'x'.repeat(MAX_TOKEN_LENGTH + 1) }]) {
      expect(tokenFromSignInBody(body)).toBeNull();
    }
  });
});

describe('session cookie', () => {
  it('is httpOnly, SameSite=Strict, for the whole console, Secure only over https', () => {
    expect(sessionCookieOptions(false)).toMatchObject({ httpOnly: true, sameSite: 'strict', path: '/', secure: false });
    expect(sessionCookieOptions(true).secure).toBe(true);
  });

  it('knows https from the URL or from a TLS proxy', () => {
    expect(isHttps('https://console.example.com/api/session', null)).toBe(true);
    expect(isHttps('http://127.0.0.1:3000/api/session', 'https')).toBe(true);
    expect(isHttps('http://127.0.0.1:3000/api/session', null)).toBe(false);
  });
});
