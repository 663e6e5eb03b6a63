import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mintCredentials, mintToken, readTokensFile, tokenDigest, writeTokensFile } from './agent-tokens.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('agent tokens', () => {
  it('mints distinct, prefixed 256-bit tokens', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => mintToken()));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^ahp_[A-Za-z0-9_-]{43}$/);
  });

  it('stores only digests, readable back through the protocol schema, with owner-only permissions', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ahp-tokens-'));
    dirs.push(dir);
    const path = join(dir, 'nested', 'tokens.json');
    const credentials = mintCredentials([
      { id: 'lead', name: 'Lead', team: 't', role: 'lead' },
      { id: 'mate', name: 'Mate', team: 't', role: 'teammate' },
    ]);
    await writeTokensFile(path, credentials);
    const text = await readFile(path, 'utf8');
    for (const { token } of credentials) expect(text).not.toContain(token);
    const file = await readTokensFile(path);
    expect(file.agents.map((entry) => [entry.id, entry.token_sha256])).toEqual(
      credentials.map(({ agent, token }) => [agent.id, tokenDigest(token)]),
    );
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('computes the SHA-256 hex digest', () => {
    expect(tokenDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
