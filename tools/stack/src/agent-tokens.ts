/**
 * Agent tokens for the main job and the tests: minted here, shown once, and stored in the
 * gateway's tokens file only as SHA-256 digests.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AgentTokensFileSchema, type AgentIdentity, type AgentTokensFile } from '@ahp/protocol';

/** A new bearer token: 32 random bytes (256 bits), base64url, prefixed so it is recognisable in a leak scan. */
export function mintToken(): string {
  return `ahp_${randomBytes(32).toString('base64url')}`;
}

/** The digest the tokens file keeps for `token`. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** An agent with the plain token it authenticates with (held by the agent, never stored by us). */
export interface AgentCredential {
  agent: AgentIdentity;
  token: string;
}

/** Mints a token for each agent. */
export function mintCredentials(agents: readonly AgentIdentity[]): AgentCredential[] {
  return agents.map((agent) => ({ agent, token: mintToken() }));
}

/** Writes a tokens file for `credentials` (digests only), validated against the protocol schema; mode 0600. */
export async function writeTokensFile(path: string, credentials: readonly AgentCredential[]): Promise<void> {
  const file: AgentTokensFile = AgentTokensFileSchema.parse({
    agents: credentials.map(({ agent, token }) => ({ ...agent, token_sha256: tokenDigest(token) })),
  });
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}

/** Reads and validates a tokens file. */
export async function readTokensFile(path: string): Promise<AgentTokensFile> {
  return AgentTokensFileSchema.parse(JSON.parse(await readFile(path, 'utf8')));
}
