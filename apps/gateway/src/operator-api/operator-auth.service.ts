/**
 * Who is calling the operator API: bearer tokens → operator identities with roles, from the
 * operator tokens file (`AHP_OPERATOR_TOKENS_FILE`). Same rules as agent tokens: only SHA-256
 * digests are held, a presented token is hashed and looked up (no secret is compared with
 * another), and a failed reload keeps the previous table.
 */
import { readFile } from 'node:fs/promises';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { OperatorTokensFileSchema, describeIssues, type OperatorIdentity } from '@ahp/protocol';
import { tokenDigest } from '../auth/agent-auth.service.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import { GatewayConfigError, type GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';

/** Why a call was refused; all are answered 401 alike, the reason is only logged. */
export type OperatorAuthFailure = 'not_configured' | 'missing_token' | 'malformed_token' | 'unknown_token' | 'revoked_token';

export type OperatorAuthResult = { ok: true; operator: OperatorIdentity } | { ok: false; reason: OperatorAuthFailure };

/** Result of {@link OperatorAuthService.reload}. */
export type OperatorReloadResult = { ok: true; operators: number; revoked: number } | { ok: false; error: string };

interface OperatorTable {
  readonly byDigest: ReadonlyMap<string, OperatorIdentity>;
  readonly revoked: ReadonlySet<string>;
}

/** Longest token accepted, so hashing a hostile header costs nothing. */
const MAX_TOKEN_LENGTH = 4096;
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

async function loadOperatorTable(path: string): Promise<OperatorTable> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${path} as JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const parsed = OperatorTokensFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`${path} does not match the operator tokens schema: ${describeIssues(parsed.error.issues)}`);
  }
  const byDigest = new Map<string, OperatorIdentity>();
  const revoked = new Set<string>();
  for (const { token_sha256: digest, revoked: isRevoked, ...identity } of parsed.data.operators) {
    if (isRevoked === true) revoked.add(digest);
    else byDigest.set(digest, identity);
  }
  return { byDigest, revoked };
}

/**
 * The bearer token of an `Authorization` header, or undefined. Only the header counts here: the
 * console and scripts can always set it, and a token in a URL ends up in access logs.
 */
export function bearerTokenOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header.trim());
  return match?.[1] ?? (header.trim() === '' ? undefined : header.trim());
}

/**
 * Authenticates operators. Without `AHP_OPERATOR_TOKENS_FILE` nobody can authenticate (every
 * call is 401); with it, a missing or invalid file stops the gateway at start, naming the
 * variable.
 */
@Injectable()
export class OperatorAuthService implements OnModuleInit {
  private table: OperatorTable = { byDigest: new Map(), revoked: new Set() };
  private readonly reloadListeners = new Set<() => void>();
  private readonly log: JsonLogger;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'operatorTokensFile'>,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'operator-auth' });
  }

  async onModuleInit(): Promise<void> {
    const path = this.config.operatorTokensFile;
    if (path === undefined) {
      this.log.info({}, 'no operator tokens file: the operator API refuses every call');
      return;
    }
    try {
      this.table = await loadOperatorTable(path);
    } catch (error) {
      throw new GatewayConfigError([{ variable: 'AHP_OPERATOR_TOKENS_FILE', message: error instanceof Error ? error.message : String(error) }]);
    }
    this.log.info({ operators: this.table.byDigest.size, revoked: this.table.revoked.size }, 'operator tokens loaded');
  }

  /** Re-reads the file (SIGHUP); on failure the previous tokens stay in force. */
  async reload(): Promise<OperatorReloadResult> {
    const path = this.config.operatorTokensFile;
    if (path === undefined) return { ok: false, error: 'AHP_OPERATOR_TOKENS_FILE is not set' };
    try {
      this.table = await loadOperatorTable(path);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.error({ error: message }, 'operator tokens reload failed; keeping the previous tokens');
      return { ok: false, error: message };
    }
    this.log.info({ operators: this.table.byDigest.size, revoked: this.table.revoked.size }, 'operator tokens reloaded');
    for (const listener of [...this.reloadListeners]) {
      try {
        listener();
      } catch (error) {
        this.log.warn({ error }, 'an operator tokens reload listener failed');
      }
    }
    return { ok: true, operators: this.table.byDigest.size, revoked: this.table.revoked.size };
  }

  /**
   * Calls `listener` after every successful reload, so what outlives one request (an open live
   * stream) can authenticate again and stop acting for a token revoked or changed since. Returns
   * the function that removes it.
   */
  onReload(listener: () => void): () => void {
    this.reloadListeners.add(listener);
    return () => this.reloadListeners.delete(listener);
  }

  /** Authenticates the value of an `Authorization` header. */
  authenticate(authorization: string | string[] | undefined): OperatorAuthResult {
    if (this.config.operatorTokensFile === undefined) return { ok: false, reason: 'not_configured' };
    const token = bearerTokenOf(authorization);
    if (token === undefined) return { ok: false, reason: 'missing_token' };
    if (token.length > MAX_TOKEN_LENGTH || !TOKEN_PATTERN.test(token)) return { ok: false, reason: 'malformed_token' };
    const digest = tokenDigest(token);
    const operator = this.table.byDigest.get(digest);
    if (operator !== undefined) return { ok: true, operator };
    return { ok: false, reason: this.table.revoked.has(digest) ? 'revoked_token' : 'unknown_token' };
  }
}
