import { describe, expect, it } from 'vitest';
import { REDACTED_CREDENTIAL, redactHooksConfigCredentials } from './redact.js';
import { validateHooksConfig } from './validate.js';

const SLACK = 'https://hooks.slack.example/services/T0/B0/XSECRET';
const HOOK = 'https://hooks.example.com/ahp?token=abc123';

const SOURCE = `version: 1
hooks: {}
# chat goes to ${SLACK}
notifications:
  channels:
    chat: { type: slack, url: "${SLACK}" }
    on-call:
      type: webhook
      url: &hook ${HOOK}   # signed
      secret_env: AHP_WEBHOOK_SECRET
    again:
      type: webhook
      url: *hook
      secret_env: AHP_WEBHOOK_SECRET
  routes:
    - channels: [chat, on-call, again]
`;

describe('redactHooksConfigCredentials', () => {
  it('masks every channel url, in quotes, behind an anchor and in comments, and keeps the rest as written', () => {
    expect(validateHooksConfig(SOURCE).ok).toBe(true);
    const { source, redacted } = redactHooksConfigCredentials(SOURCE);
    expect(redacted).toBe(2);
    expect(source).not.toContain('XSECRET');
    expect(source).not.toContain('abc123');
    expect(source).toContain(`url: &hook "${REDACTED_CREDENTIAL}"   # signed`);
    expect(source).toContain('secret_env: AHP_WEBHOOK_SECRET');
    expect(source).toContain('    - channels: [chat, on-call, again]');
  });

  it('leaves a text without credentials untouched, and replaces one it cannot parse whole', () => {
    const plain = 'version: 1\nhooks: {}\n';
    expect(redactHooksConfigCredentials(plain)).toEqual({ source: plain, redacted: 0 });
    const broken = redactHooksConfigCredentials(`notifications: { channels: { a: { url: "${SLACK}" } }\n  bad: [`);
    expect(broken.source).not.toContain('XSECRET');
  });

  it('makes a text that no longer validates: the marker is not an address', () => {
    const checked = validateHooksConfig(redactHooksConfigCredentials(SOURCE).source);
    expect(checked.ok).toBe(false);
  });
});
