import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signNotification, verifyNotificationSignature } from './sign.js';

describe('notification signatures', () => {
  const body = '{"event":"request.waiting","request":{"id":"r-1"}}';

  it('is sha256= and the hex HMAC-SHA256 of the raw body', () => {
    const hex = createHmac('sha256', 'topsecret').update(body).digest('hex');
    expect(signNotification('topsecret', body)).toBe(`sha256=${hex}`);
    // A known vector (RFC 4231 test case 2: key "Jefe").
    expect(signNotification('Jefe', 'what do ya want for nothing?')).toBe('sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('verifies only the same body under the same secret', () => {
    const signature = signNotification('topsecret', body);
    expect(verifyNotificationSignature('topsecret', body, signature)).toBe(true);
    expect(verifyNotificationSignature('other', body, signature)).toBe(false);
    expect(verifyNotificationSignature('topsecret', body.replace('r-1', 'r-2'), signature)).toBe(false);
    expect(verifyNotificationSignature('topsecret', body, undefined)).toBe(false);
    expect(verifyNotificationSignature('topsecret', body, 'sha256=00')).toBe(false);
  });
});
