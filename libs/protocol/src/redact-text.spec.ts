/**
 * redactText, one pattern at a time: what each recognises in free text, what it leaves alone, and
 * inputs built to make a backtracking pattern blow up (they must come back intact and correct).
 */
import { describe, expect, it } from 'vitest';
import { LIMITS } from './primitives.js';
import { REDACTED, TRUNCATED, clipText, redactFreeText, redactText, redactTextWithin } from './redact.js';

const R = REDACTED;

describe('redactText: token formats', () => {
  it.each([
    ['AWS access key id', 'key AKIAIOSFODNN7EXAMPLE in use', `key ${R} in use`],
    ['AWS session key id', 'ASIAY34FZKBOKMUTVV7A', R],
    ['GitHub personal token', `push with ghp_${'a1B2'.repeat(9)} now`, `push with ${R} now`],
    ['GitHub fine-grained token', `github_pat_11ABCDEFG0123456789_${'x'.repeat(40)}`, R],
    ['GitHub app token', `ghs_${'Z9'.repeat(18)}`, R],
    ['Slack bot token', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', R],
    ['Slack app token', 'xapp-1-A0123456789-1234567890123-abcdef0123456789', R],
    ['OpenAI key', `OPENAI key sk-proj-${'Ab3_'.repeat(10)}`, `OPENAI key ${R}`],
    ['Anthropic key', `sk-ant-api03-${'Qw9-'.repeat(12)}`, R],
    ['Stripe key', `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`, R],
    ['Google API key', `AIza${'SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY'.slice(0, 35)}`, R],
    ['JWT', 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end', `token ${R} end`],
  ])('%s', (_name, text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it('leaves look-alikes alone', () => {
    for (const text of ['AKIA is a prefix', 'ghp_short', 'task-list-for-the-sprint-planning', 'sk-12', 'eyJ alone', 'xoxb-short']) {
      expect(redactText(text)).toBe(text);
    }
  });
});

describe('redactText: private-key blocks', () => {
  const KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx8Jm\nq9Wd+abc==\n-----END RSA PRIVATE KEY-----';

  it('blanks the whole block, header to footer, and keeps what surrounds it', () => {
    expect(redactText(`here:\n${KEY}\nthanks`)).toBe(`here:\n${R}\nthanks`);
    expect(redactText(KEY.replace(/RSA /g, 'OPENSSH '))).toBe(R);
    expect(redactText(KEY.replace(/RSA /g, ''))).toBe(R);
  });

  it('blanks a block with no end to the end of the text, and several blocks', () => {
    expect(redactText('key: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI')).toBe(`key: ${R}`);
    expect(redactText(`${KEY} and ${KEY}`)).toBe(`${R} and ${R}`);
  });

  it('leaves public keys and certificates alone', () => {
    const cert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    expect(redactText(cert)).toBe(cert);
    const pub = '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----';
    expect(redactText(pub)).toBe(pub);
  });
});

describe('redactText: schemes, URLs, parameters and named values', () => {
  it('HTTP auth schemes', () => {
    expect(redactText('Authorization: Bearer abc.DEF-123')).toBe(`Authorization: Bearer ${R}`);
    expect(redactText('basic dXNlcjpwYXNz')).toBe(`basic ${R}`);
  });

  it("a URL's password, not its user or host", () => {
    expect(redactText('clone https://bot:s3cr3t@github.com/org/repo.git')).toBe(`clone https://bot:${R}@github.com/org/repo.git`);
    expect(redactText('postgres://app:p%40ss@db:5432/app')).toBe(`postgres://app:${R}@db:5432/app`);
    expect(redactText('mail me at dev@example.com')).toBe('mail me at dev@example.com');
  });

  it('secret query parameters', () => {
    expect(redactText('GET /cb?state=1&access_token=abc123&x=2')).toBe(`GET /cb?state=1&access_token=${R}&x=2`);
  });

  it('name=value and name: value pairs whose name is a secret', () => {
    expect(redactText('login with password=hunter2 please')).toBe(`login with password=${R} please`);
    expect(redactText('export GITHUB_TOKEN=abc123def')).toBe(`export GITHUB_TOKEN=${R}`);
    expect(redactText('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY')).toBe(`aws_secret_access_key = ${R}`);
    expect(redactText('{"api_key": "k-123", "user": "bob"}')).toBe(`{"api_key": "${R}", "user": "bob"}`);
    expect(redactText("client_secret: 'abc'")).toBe(`client_secret: '${R}'`);
    expect(redactText('DB_PASSWORD:hunter2')).toBe(`DB_PASSWORD:${R}`);
  });

  it('leaves ordinary pairs and prose alone', () => {
    for (const text of ['Note: tests pass', 'retries=3, timeout=10s', 'token_sha256=abcdef', 'the password is strong', 'https://example.com:8443/path']) {
      expect(redactText(text)).toBe(text);
    }
  });

  it('is idempotent', () => {
    const once = redactText(`password=x Bearer y ghp_${'a'.repeat(36)} https://u:p@h`);
    expect(redactText(once)).toBe(once);
  });
});

describe('redactText on hostile input (linear patterns: these finish, and correctly)', () => {
  it.each([
    ['a long run of name characters', 'a'.repeat(200_000)],
    ['many names without values', 'password '.repeat(20_000)],
    ['many separators', 'password:'.repeat(20_000)],
    ['a scheme with a huge blank', `Bearer${' '.repeat(100_000)}`],
    ['an unfinished URL', `https://${'u'.repeat(100_000)}:${'p'.repeat(100_000)}`],
    ['JWT-like prefixes', 'eyJ' + 'a'.repeat(50_000) + '.eyJ' + 'b'.repeat(50_000)],
    ['many unterminated key headers', '-----BEGIN RSA PRIVATE KEY-----x'.repeat(5_000)],
    ['many BEGIN without a header', '-----BEGIN '.repeat(20_000)],
    ['token prefixes', 'ghp_ xoxb- sk- AKIA AIza '.repeat(10_000)],
  ])('%s', (_name, text) => {
    const out = redactText(text);
    expect(typeof out).toBe('string');
    expect(out.length).toBeLessThanOrEqual(text.length + REDACTED.length);
  });

  it('blanks everything after an unterminated key header', () => {
    expect(redactText('-----BEGIN RSA PRIVATE KEY-----x'.repeat(5_000))).toBe(R);
  });
});

describe('redactFreeText', () => {
  it('redacts strings at any depth and secret-named fields, returning the same object when clean', () => {
    const clean = { kind: 'verification', result: { passed: true, output: 'all good' } };
    expect(redactFreeText(clean)).toBe(clean);
    expect(redactFreeText({ summary: 'use Bearer abcdef123', details: { token: 'x', steps: ['password=pw'] } })).toEqual({
      summary: `use Bearer ${R}`,
      details: { token: R, steps: [`password=${R}`] },
    });
  });
});

// Redaction can make text longer (`token=a` → `token=[redacted]`); what fitted its schema before
// must fit after, or the stored copy no longer parses when it is read back.
describe('redaction within limits', () => {
  const poison = 'token=a '.repeat(LIMITS.maxText / 8);

  it('clipText cuts to exactly max characters, marked, and never splits a surrogate pair', () => {
    expect(clipText('short', 10)).toBe('short');
    const cut = clipText('x'.repeat(100), 50);
    expect(cut).toHaveLength(50);
    expect(cut.endsWith(TRUNCATED)).toBe(true);
    const emoji = clipText(`${'a'.repeat(36)}${'😀'.repeat(10)}`, 50);
    expect(emoji.length).toBeLessThanOrEqual(50);
    expect(emoji.endsWith(TRUNCATED)).toBe(true);
    expect(emoji.slice(0, -TRUNCATED.length)).toBe(`${'a'.repeat(36)}😀`);
  });

  it('redactTextWithin redacts, then keeps the text within max', () => {
    expect(redactText(poison).length).toBeGreaterThan(LIMITS.maxText);
    const fitted = redactTextWithin(poison, LIMITS.maxText);
    expect(fitted).toHaveLength(LIMITS.maxText);
    expect(fitted.startsWith(`token=${R} token=${R} `)).toBe(true);
    expect(fitted).not.toContain('token=a ');
    expect(redactTextWithin('token=a', 100)).toBe(`token=${R}`);
  });

  it('redactFreeText keeps a grown string within the smallest limit its original fitted', () => {
    const out = redactFreeText({ title: poison, short: 'token=a '.repeat(32), small: 'token=a' });
    expect(out.title).toHaveLength(LIMITS.maxText);
    expect(out.title.endsWith(TRUNCATED)).toBe(true);
    expect(out.short).toHaveLength(LIMITS.maxShortString);
    expect(out.small).toBe(`token=${R}`);
  });
});
