import { describe, expect, it } from 'vitest';
import { checkCsrf, ownOrigin } from './csrf';

const own = 'http://localhost:3000';

describe('checkCsrf', () => {
  it('lets reads through without the header', () => {
    expect(checkCsrf({ method: 'GET', origin: 'https://evil.example', csrfHeader: null, ownOrigin: own })).toEqual({ ok: true });
    expect(checkCsrf({ method: 'head', origin: null, csrfHeader: null, ownOrigin: own })).toEqual({ ok: true });
  });

  it('accepts a mutating call from the console itself with the header', () => {
    expect(checkCsrf({ method: 'POST', origin: own, csrfHeader: '1', ownOrigin: own })).toEqual({ ok: true });
    // Non-browser clients send no Origin; they still need the header.
    expect(checkCsrf({ method: 'DELETE', origin: null, csrfHeader: '1', ownOrigin: own })).toEqual({ ok: true });
  });

  it('refuses a mutating call without the header, whatever its origin', () => {
    const verdict = checkCsrf({ method: 'POST', origin: own, csrfHeader: null, ownOrigin: own });
    expect(verdict).toEqual({ ok: false, reason: 'missing x-ahp-csrf header' });
    expect(checkCsrf({ method: 'POST', origin: null, csrfHeader: 'yes', ownOrigin: own }).ok).toBe(false);
  });

  it('refuses a mutating call from another origin even with the header', () => {
    const verdict = checkCsrf({ method: 'POST', origin: 'https://evil.example', csrfHeader: '1', ownOrigin: own });
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toContain('https://evil.example');
    // Same host, other scheme or port: another origin.
    expect(checkCsrf({ method: 'POST', origin: 'https://localhost:3000', csrfHeader: '1', ownOrigin: own }).ok).toBe(false);
    expect(checkCsrf({ method: 'POST', origin: 'http://localhost:3001', csrfHeader: '1', ownOrigin: own }).ok).toBe(false);
  });
});

describe('ownOrigin', () => {
  it('uses the Host header the browser sent and the scheme of the request', () => {
    expect(ownOrigin('http://0.0.0.0:3000/api/session', 'localhost:3000', null)).toBe('http://localhost:3000');
  });

  it('honours the scheme a TLS proxy reports', () => {
    expect(ownOrigin('http://127.0.0.1:3000/api/session', 'console.example.com', 'https, http')).toBe('https://console.example.com');
  });

  it('falls back to the request URL without a Host header', () => {
    expect(ownOrigin('http://127.0.0.1:4000/x', null, null)).toBe('http://127.0.0.1:4000');
  });
});
