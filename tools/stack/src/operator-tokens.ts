/**
 * The main job's operator credentials: on first start, an admin token for the local user, kept
 * in plain text beside the data it protects (mode 0600), and its digest in the gateways'
 * operator tokens file. Later starts reuse both; more operators are added with
 * `ahp tokens operator <id> --file <tokens file>`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { OperatorTokensFileSchema, type OperatorIdentity } from '@ahp/protocol';
import { mintToken, tokenDigest } from './agent-tokens.js';

/** The operator the main job creates on first start. */
export const LOCAL_ADMIN: OperatorIdentity = Object.freeze({ id: 'local-admin', name: 'Local admin', role: 'admin' });

export interface OperatorTokensOutcome {
  /** Whether this call created the tokens file. */
  created: boolean;
  /** The admin's plain token, when its file exists (absent: the user removed it, or brought their own tokens file). */
  adminToken: string | undefined;
}

/**
 * Makes sure `tokensFile` exists: when it does not, mints a token for {@link LOCAL_ADMIN}, writes
 * the file (digest only, validated by the protocol schema) and the plain token to `adminTokenFile`.
 * An existing tokens file is left as it is.
 */
export async function ensureOperatorTokens(tokensFile: string, adminTokenFile: string): Promise<OperatorTokensOutcome> {
  let created = false;
  if (!existsSync(tokensFile)) {
    const token = mintToken();
    const file = OperatorTokensFileSchema.parse({ operators: [{ ...LOCAL_ADMIN, token_sha256: tokenDigest(token) }] });
    await mkdir(dirname(tokensFile), { recursive: true });
    await writeFile(adminTokenFile, `${token}\n`, { mode: 0o600 });
    await writeFile(tokensFile, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    created = true;
  }
  const adminToken = existsSync(adminTokenFile) ? (await readFile(adminTokenFile, 'utf8')).trim() || undefined : undefined;
  return { created, adminToken };
}
