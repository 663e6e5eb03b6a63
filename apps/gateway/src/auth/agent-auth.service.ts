/**
 * Who is knocking: bearer tokens → agent identities, from the agent tokens file.
 *
 * Only SHA-256 digests of tokens are kept, in the file and in memory. A presented token is hashed
 * and the digest is looked up in a map; no secret is ever compared with another secret. That is
 * what makes a constant-time comparison unnecessary here: the lookup's timing can at most reveal
 * something about a digest, and learning a digest gets an attacker no closer to a token, since
 * tokens are long random secrets (≥ 128 bits) that cannot be recovered from their SHA-256. A
 * byte-by-byte `===` between a presented and a stored token, by contrast, would leak how many
 * leading bytes matched.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { AgentTokensFileSchema, describeIssues, type AgentIdentity } from '@ahp/protocol';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import { GatewayConfigError, type GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';

/** An agent the gateway let in: its identity and the digest of the token it used. */
export interface AuthenticatedAgent {
  readonly identity: AgentIdentity;
  /** SHA-256 (hex) of the token; lets a reload tell whether this connection's token still counts. */
  readonly tokenDigest: string;
}

/** Why a request was refused; every reason is answered alike (401), the reason is only logged. */
export type AuthFailure = 'missing_token' | 'malformed_token' | 'unknown_token' | 'revoked_token';

export type AuthResult = { ok: true; agent: AuthenticatedAgent } | { ok: false; reason: AuthFailure };

/** Result of {@link AgentAuthService.reload}. */
export type ReloadResult = { ok: true; agents: number; revoked: number } | { ok: false; error: string };

/** Longest token accepted, so hashing a hostile header costs nothing. */
const MAX_TOKEN_LENGTH = 4096;
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

interface TokenTable {
  readonly byDigest: ReadonlyMap<string, AgentIdentity>;
  /** Agents that can authenticate, by id: whom an agent may address (teammates). */
  readonly byId: ReadonlyMap<string, AgentIdentity>;
  readonly revoked: ReadonlySet<string>;
}

/** SHA-256 of a token as lowercase hex: the form kept in the tokens file. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The bearer token of an upgrade request: `Authorization: Bearer <token>` first, else the `token`
 * query parameter (browsers cannot set headers on a WebSocket). Undefined when neither is present.
 */
export function extractBearerToken(request: Pick<IncomingMessage, 'headers' | 'url'>): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.trim() !== '') {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header.trim());
    // A malformed Authorization header is not silently ignored in favour of the query: the
    // client clearly meant to authenticate with it, so it is what gets judged.
    return match?.[1] ?? header;
  }
  try {
    const token = new URL(request.url ?? '/', 'http://gateway.invalid').searchParams.get('token');
    return token === null || token === '' ? undefined : token;
  } catch {
    return undefined;
  }
}

/** Reads and checks a tokens file; throws with a readable message on any problem. */
async function loadTokenTable(path: string): Promise<TokenTable> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const parsed = AgentTokensFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`${path} does not match the agent tokens schema: ${describeIssues(parsed.error.issues)}`);
  }
  const byDigest = new Map<string, AgentIdentity>();
  const byId = new Map<string, AgentIdentity>();
  const revoked = new Set<string>();
  for (const entry of parsed.data.agents) {
    const { token_sha256: digest, revoked: isRevoked, ...identity } = entry;
    if (isRevoked === true) revoked.add(digest);
    else {
      byDigest.set(digest, identity);
      byId.set(identity.id, identity);
    }
  }
  return { byDigest, byId, revoked };
}

/**
 * Authenticates agents by bearer token. The table is loaded at start (a missing or invalid file
 * stops the gateway, naming `AHP_AGENT_TOKENS_FILE`) and replaced atomically by {@link reload}
 * (SIGHUP); a failed reload keeps the previous table, so a typo in the file never locks every
 * agent out.
 */
@Injectable()
export class AgentAuthService implements OnModuleInit {
  private table: TokenTable = { byDigest: new Map(), byId: new Map(), revoked: new Set() };
  private readonly listeners = new Set<() => void>();
  private readonly logger: JsonLogger;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'agentTokensFile'>,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.logger = logger.child({ component: 'auth' });
  }

  /** Loads the tokens file; the gateway does not start without a valid one. */
  async onModuleInit(): Promise<void> {
    try {
      this.table = await loadTokenTable(this.config.agentTokensFile);
    } catch (error) {
      throw new GatewayConfigError([{ variable: 'AHP_AGENT_TOKENS_FILE', message: error instanceof Error ? error.message : String(error) }]);
    }
    this.logger.info({ agents: this.table.byDigest.size, revoked: this.table.revoked.size }, 'agent tokens loaded');
  }

  /**
   * Re-reads the tokens file. On success the new table applies to every later upgrade, and
   * listeners are told so they can close connections whose token no longer counts.
   */
  async reload(): Promise<ReloadResult> {
    let next: TokenTable;
    try {
      next = await loadTokenTable(this.config.agentTokensFile);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.error({ error: message }, 'agent tokens reload failed; keeping the previous tokens');
      return { ok: false, error: message };
    }
    this.table = next;
    this.logger.info({ agents: next.byDigest.size, revoked: next.revoked.size }, 'agent tokens reloaded');
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.logger.error({ error }, 'agent tokens reload listener failed');
      }
    }
    return { ok: true, agents: next.byDigest.size, revoked: next.revoked.size };
  }

  /** Calls `listener` after every successful reload; returns the unsubscribe function. */
  onReload(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Authenticates a presented token (undefined: none was presented). */
  authenticateToken(token: string | undefined): AuthResult {
    if (token === undefined || token === '') return { ok: false, reason: 'missing_token' };
    if (token.length > MAX_TOKEN_LENGTH || !TOKEN_PATTERN.test(token)) return { ok: false, reason: 'malformed_token' };
    const digest = tokenDigest(token);
    const identity = this.table.byDigest.get(digest);
    if (identity !== undefined) return { ok: true, agent: { identity, tokenDigest: digest } };
    return { ok: false, reason: this.table.revoked.has(digest) ? 'revoked_token' : 'unknown_token' };
  }

  /** Authenticates an HTTP upgrade request by its header or query token. */
  authenticateRequest(request: Pick<IncomingMessage, 'headers' | 'url'>): AuthResult {
    return this.authenticateToken(extractBearerToken(request));
  }

  /**
   * The identity (team, role) of a known, unrevoked agent, whether or not it is connected; used to
   * check that a message or request stays within a team. Undefined for an unknown or revoked id.
   */
  identityOf(agentId: string): AgentIdentity | undefined {
    return this.table.byId.get(agentId);
  }

  /** The known, unrevoked agents of `team` (the tokens file as it is now). */
  membersOf(team: string): AgentIdentity[] {
    return [...this.table.byId.values()].filter((identity) => identity.team === team);
  }

  /**
   * The agent id of `team`'s lead: the one known, unrevoked agent of the team with role `lead`.
   * Undefined when the team has none, or several (then no single answer is right).
   */
  teamLeadOf(team: string): string | undefined {
    let lead: string | undefined;
    for (const identity of this.table.byId.values()) {
      if (identity.team !== team || identity.role !== 'lead') continue;
      if (lead !== undefined) return undefined;
      lead = identity.id;
    }
    return lead;
  }

  /**
   * Whether a connection authenticated as `agent` may stay: `valid` while its token still maps to
   * the same agent id; `revoked` when its entry is now marked revoked; `unknown` when the token was
   * removed or moved to another agent.
   */
  tokenStatus(agent: AuthenticatedAgent): 'valid' | 'revoked' | 'unknown' {
    if (this.table.byDigest.get(agent.tokenDigest)?.id === agent.identity.id) return 'valid';
    return this.table.revoked.has(agent.tokenDigest) ? 'revoked' : 'unknown';
  }
}
