import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OperatorTokensFileSchema } from '@ahp/protocol';
import { tokenDigest } from './agent-tokens.js';
import { LOCAL_ADMIN, ensureOperatorTokens } from './operator-tokens.js';

describe('ensureOperatorTokens', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ahp-operator-tokens-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates an admin token on first start and keeps only its digest in the tokens file', async () => {
    const tokensFile = join(dir, 'data', 'operator-tokens.json');
    const tokenFile = join(dir, 'data', 'operator.token');
    const first = await ensureOperatorTokens(tokensFile, tokenFile);
    expect(first.created).toBe(true);
    expect(first.adminToken).toMatch(/^ahp_[A-Za-z0-9_-]{43}$/);
    const file = OperatorTokensFileSchema.parse(JSON.parse(await readFile(tokensFile, 'utf8')));
    expect(file.operators).toEqual([{ ...LOCAL_ADMIN, token_sha256: tokenDigest(first.adminToken!) }]);
    expect(await readFile(tokensFile, 'utf8')).not.toContain(first.adminToken!);
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    expect((await stat(tokensFile)).mode & 0o777).toBe(0o600);

    const again = await ensureOperatorTokens(tokensFile, tokenFile);
    expect(again).toEqual({ created: false, adminToken: first.adminToken });
  });

  it('leaves a tokens file it did not create alone', async () => {
    const tokensFile = join(dir, 'operator-tokens.json');
    await writeFile(tokensFile, '{"operators": []}\n');
    expect(await ensureOperatorTokens(tokensFile, join(dir, 'operator.token'))).toEqual({ created: false, adminToken: undefined });
    expect(await readFile(tokensFile, 'utf8')).toBe('{"operators": []}\n');
  });
});
