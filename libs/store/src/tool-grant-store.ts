/**
 * Session grants: an operator's approval "for the rest of this session" of one tool with one input
 * (or any input), recorded, matched by the worker before it asks for approval, and revocable.
 *
 * Guarantees:
 * - One grant per request: its id is derived from the request id, so deciding the same request
 *   again (an operator's retried call) returns the grant recorded the first time.
 * - A grant lives as long as a session: `ttlMs` (the gateway's session TTL) after it was granted,
 *   counted again from every use, like the session itself after its last use. Revoked grants stay
 *   readable (who revoked it, when) until then.
 * - `revoke` is a compare-and-set: of two operators revoking at once, one revokes and the other
 *   gets `already_revoked` naming the first. Revocation is effective for the very next call on
 *   every process: `match` reads the grants afresh (nothing is cached) and the script that counts
 *   a use (grant-use) refuses a revoked grant in the same step, so no use is counted after the
 *   revocation returned; the revocation also marks the approval request the grant came from, so
 *   that request is never consumed again either (consume-tool-approval).
 * - Every use is numbered in Redis (`uses`); a revoked grant's count is final and the revocation
 *   reports it, which orders every allowed call before or after the revocation.
 * - Only an approved tool approval a rule opened (`openedByRule`) can become a grant, and the grant
 *   covers only calls that the rules which asked for that approval ask about (`grantCovers`).
 * - Every grant read back is parsed with the protocol's `ToolGrantSchema`.
 */
import { createHash } from 'node:crypto';
import { MAX_GRANT_LIST, ToolGrantSchema, approvalRulesOf, grantCovers, openedByRule, type ApprovalScope, type ProtocolState, type ToolGrant } from '@ahp/protocol';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply, epochField, parseStored, parseStoredJson, stringAt } from './lua.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import {
  GRANT_CREATE_CORE_LUA,
  GRANT_CREATE_LUA,
  GRANT_REVOKE_CORE_LUA,
  GRANT_REVOKE_LUA,
  GRANT_REVOKE_MARK_LUA,
  GRANT_SESSION_ADD_LUA,
  GRANT_USE_CORE_LUA,
  GRANT_USE_LUA,
} from './scripts/tool-grant.lua.js';
import { toolInputDigest } from './tool-approval-store.js';
import { describeIssues } from './validate.js';

const grantCreate = new LuaScript('grant-create', GRANT_CREATE_LUA);
const grantUse = new LuaScript('grant-use', GRANT_USE_LUA);
const grantRevoke = new LuaScript('grant-revoke', GRANT_REVOKE_LUA);
const grantCreateCore = new LuaScript('grant-create-core', GRANT_CREATE_CORE_LUA);
const grantUseCore = new LuaScript('grant-use-core', GRANT_USE_CORE_LUA);
const grantSessionAdd = new LuaScript('grant-session-add', GRANT_SESSION_ADD_LUA);
const grantRevokeMark = new LuaScript('grant-revoke-mark', GRANT_REVOKE_MARK_LUA);
const grantRevokeCore = new LuaScript('grant-revoke-core', GRANT_REVOKE_CORE_LUA);

/** Grants read at most by one unfiltered or agent-filtered `list` (the index holds every live grant). */
const MAX_SCANNED_GRANTS = 5_000;

/** Attempts of a revocation that keeps losing its compare-and-set (only another revocation writes a grant). */
const MAX_ATTEMPTS = 5;

/** The grant id recorded for an approval of `requestId`. */
export function grantIdFor(requestId: string): string {
  return `grant_${createHash('sha256').update(requestId, 'utf8').digest('hex').slice(0, 32)}`;
}

/** What {@link ToolGrantStore.grant} records. */
export interface GrantFromApproval {
  /** An approved `tool_approval` that a session asked for (`payload.session_id`). */
  readonly state: ProtocolState;
  readonly scope: Exclude<ApprovalScope, 'once'>;
  /** The operator who approved. */
  readonly grantedBy: string;
  /** How long the grant lives after it is granted and after each use: the session TTL. */
  readonly ttlMs: number;
  /** Epoch milliseconds. */
  readonly now: number;
}

/** A call to check against the grants of its session. */
export interface GrantCall {
  readonly agentId: string;
  readonly sessionId: string;
  readonly tool: string;
  readonly inputDigest: string;
  /** The rules asking for approval of the call (`approvalRuleOf`); a grant covers them only if it was given for all of them. */
  readonly rules: readonly string[];
}

/** See the module comment. */
export interface ToolGrantStore {
  /**
   * Records the grant of an approval; `created: false` returns the one recorded earlier for the
   * same request. The pattern is the input the person approved: the modified input when they
   * modified it.
   * @throws StoreInputError when `state` is not an approved tool approval asked for in a session.
   */
  grant(input: GrantFromApproval): Promise<{ created: boolean; grant: ToolGrant }>;
  /**
   * A live, unrevoked grant covering the call (an exact-input grant before a whole-tool one), used
   * now: its use is counted (`uses` is this call's number) and it lives its TTL again. A grant
   * revoked at any moment before the counting script ran is never returned.
   */
  match(call: GrantCall, now: number): Promise<ToolGrant | null>;
  get(grantId: string): Promise<ToolGrant | null>;
  /** Grants of a session, of an agent, or (neither) all unexpired ones; revoked ones included, newest first, at most {@link MAX_GRANT_LIST}. */
  list(filter: { agent?: string; session?: string }, now: number): Promise<ToolGrant[]>;
  /** Revokes a grant (and the request it came from); null when it does not exist (never, or expired). `grant.uses` is its final count. */
  revoke(grantId: string, by: string, now: number): Promise<{ outcome: 'revoked' | 'already_revoked'; grant: ToolGrant } | null>;
}

/** Options of {@link createToolGrantStore}. */
export interface ToolGrantStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
}

type GrantRecord = Omit<ToolGrant, 'expires_at'>;

function epoch(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new StoreInputError(`${name} must be epoch milliseconds, got ${value}`);
  return value;
}

/** Creates the store; see {@link ToolGrantStore}. */
export function createToolGrantStore(options: ToolGrantStoreOptions): ToolGrantStore {
  const { redis, keys } = options;

  /** A grant as stored: its JSON (for compare-and-set) and the parsed grant. */
  /**
   * Redis Cluster: a grant's entries in its session's set and the grant index, after the grant
   * itself was written (grant-create-core, grant-use-core). Idempotent; a crash before them leaves
   * a grant that match and list miss until its next create or use repeats them.
   */
  async function indexGrant(grantId: string, sessionId: string, expiresMs: number, now: number): Promise<void> {
    await grantSessionAdd.run(redis, [keys.sessionGrants(sessionId)], [grantId, expiresMs, now]);
    await redis.zAdd(keys.grantsAll, { score: expiresMs, value: grantId });
  }

  async function read(grantId: string): Promise<{ json: string; grant: ToolGrant } | null> {
    const key = keys.grant(grantId);
    const [json, expiresMs, uses] = await redis.hmGet(key, ['grant', 'expires_ms', 'uses']);
    if (json === null || json === undefined) return null;
    const expires = epochField(expiresMs ?? undefined);
    if (typeof expires !== 'number') throw new StoreDataError(key, `expires_ms ${JSON.stringify(expiresMs)} is not epoch milliseconds`, { field: 'expires_ms' });
    const record = parseStoredJson(json, key, 'grant');
    const grant = parseStored(ToolGrantSchema, { ...(record as object), expires_at: new Date(expires).toISOString(), uses: Number(uses ?? 0) }, key, 'grant');
    if (grant.grant_id !== grantId) throw new StoreDataError(key, `holds grant ${grant.grant_id}`, { field: 'grant' });
    return { json, grant };
  }

  async function readAll(ids: readonly string[]): Promise<ToolGrant[]> {
    const found = await Promise.all(ids.map((id) => read(id)));
    return found.flatMap((entry) => (entry === null ? [] : [entry.grant])).sort((a, b) => Date.parse(b.granted_at) - Date.parse(a.granted_at));
  }

  return {
    async grant(input) {
      const now = epoch('now', input.now);
      if (!Number.isSafeInteger(input.ttlMs) || input.ttlMs <= 0) throw new StoreInputError(`ttlMs must be a positive integer, got ${input.ttlMs}`);
      const { state } = input;
      if (state.type !== 'tool_approval' || state.status !== 'approved') {
        throw new StoreInputError(`only an approved tool approval can be granted for a session, not a ${state.status} ${state.type}`);
      }
      const sessionId = state.payload.session_id;
      if (sessionId === undefined || !openedByRule(state)) {
        throw new StoreInputError(`request ${state.request_id} is not one a rule opened in a session, so it can only be approved once`);
      }
      const approved = state.modified_input ?? state.payload.input;
      const grantId = grantIdFor(state.request_id);
      const record: GrantRecord = {
        grant_id: grantId,
        agent: state.sender,
        session_id: sessionId,
        tool: state.payload.tool,
        scope: input.scope,
        ...(input.scope === 'session' ? { input_digest: toolInputDigest(approved), input: approved } : {}),
        request_id: state.request_id,
        rules: [...approvalRulesOf(state)],
        granted_by: input.grantedBy,
        granted_at: new Date(now).toISOString(),
      };
      const expiresMs = now + input.ttlMs;
      const checked = ToolGrantSchema.safeParse({ ...record, expires_at: new Date(expiresMs).toISOString(), uses: 0 });
      if (!checked.success) throw new StoreInputError(`invalid grant: ${describeIssues(checked.error.issues)}`);
      const key = keys.grant(grantId);
      const args = [grantId, JSON.stringify(record), expiresMs, input.ttlMs, now];
      const cluster = isClusterClient(redis);
      const reply = arrayReply(
        cluster ? await grantCreateCore.run(redis, [key], args) : await grantCreate.run(redis, [key, keys.sessionGrants(sessionId), keys.grantsAll], args),
        key,
        grantCreate.name,
      );
      if (cluster) {
        // The session's set and the index follow the grant, on 'exists' too (a repeat repairs a crash).
        const stored = reply[0] === 'exists' ? Number(reply[2]) : expiresMs;
        await indexGrant(grantId, sessionId, Number.isSafeInteger(stored) && stored > 0 ? stored : expiresMs, now);
      }
      switch (stringAt(reply, 0, key, grantCreate.name)) {
        case 'created':
          return { created: true, grant: checked.data };
        case 'exists': {
          const existing = await read(grantId);
          if (existing === null) throw badReply(key, grantCreate.name, reply);
          return { created: false, grant: existing.grant };
        }
        default:
          throw badReply(key, grantCreate.name, reply);
      }
    },

    async match(call, now) {
      epoch('now', now);
      const setKey = keys.sessionGrants(call.sessionId);
      const ids = await redis.sMembers(setKey);
      const entries = await Promise.all(ids.map(async (id) => ({ id, found: await read(id) })));
      const gone = entries.filter((entry) => entry.found === null).map((entry) => entry.id);
      // Expired grants leave their ids behind in the session's set; drop them as they are met.
      if (gone.length > 0) await redis.sRem(setKey, gone);
      const at = new Date(now).toISOString();
      const covering = entries
        .flatMap((entry) => (entry.found === null ? [] : [entry.found.grant]))
        .filter((grant) => grantCovers(grant, { agent: call.agentId, session_id: call.sessionId, tool: call.tool, input_digest: call.inputDigest, rules: call.rules }, at))
        .sort((a, b) => (a.scope === b.scope ? Date.parse(a.granted_at) - Date.parse(b.granted_at) : a.scope === 'session' ? -1 : 1));
      // What was read above may be stale by now: the grant-use script decides, atomically with
      // any revocation. A covering grant it refuses hands the call to the next one.
      for (const chosen of covering) {
        const key = keys.grant(chosen.grant_id);
        const cluster = isClusterClient(redis);
        const reply = arrayReply(
          cluster ? await grantUseCore.run(redis, [key], [chosen.grant_id, now]) : await grantUse.run(redis, [key, setKey, keys.grantsAll], [chosen.grant_id, now]),
          key,
          grantUse.name,
        );
        const outcome = stringAt(reply, 0, key, grantUse.name);
        if (cluster && outcome === 'used') await indexGrant(chosen.grant_id, call.sessionId, Number(stringAt(reply, 1, key, grantUse.name)), now);
        if (outcome === 'revoked' || outcome === 'gone') continue;
        if (outcome !== 'used') throw badReply(key, grantUse.name, reply);
        const expires = Number(stringAt(reply, 1, key, grantUse.name));
        const uses = reply[2];
        if (!Number.isSafeInteger(expires) || typeof uses !== 'number') throw badReply(key, grantUse.name, reply);
        return { ...chosen, expires_at: new Date(expires).toISOString(), uses };
      }
      return null;
    },

    async get(grantId) {
      return (await read(grantId))?.grant ?? null;
    },

    async list(filter, now) {
      epoch('now', now);
      let ids: string[];
      if (filter.session !== undefined) {
        ids = await redis.sMembers(keys.sessionGrants(filter.session));
      } else {
        await redis.zRemRangeByScore(keys.grantsAll, '-inf', now);
        ids = await redis.zRange(keys.grantsAll, '+inf', now, { BY: 'SCORE', REV: true, LIMIT: { offset: 0, count: MAX_SCANNED_GRANTS } });
      }
      const grants = await readAll(ids);
      return grants.filter((grant) => filter.agent === undefined || grant.agent === filter.agent).slice(0, MAX_GRANT_LIST);
    },

    async revoke(grantId, by, now) {
      epoch('now', now);
      const key = keys.grant(grantId);
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        const current = await read(grantId);
        if (current === null) return null;
        if (current.grant.revoked_at !== undefined) return { outcome: 'already_revoked', grant: current.grant };
        const { expires_at: _expires, ...record } = current.grant;
        const revoked: GrantRecord = { ...record, revoked_by: by, revoked_at: new Date(now).toISOString() };
        const checked = ToolGrantSchema.safeParse({ ...revoked, expires_at: current.grant.expires_at });
        if (!checked.success) throw new StoreInputError(`invalid revocation: ${describeIssues(checked.error.issues)}`);
        const args = [current.json, JSON.stringify(revoked), grantId];
        let reply: unknown;
        if (isClusterClient(redis)) {
          // Two calls, both before the operator is answered: the request's mark first, then the grant.
          await grantRevokeMark.run(redis, [keys.request(current.grant.request_id)], [grantId]);
          reply = await grantRevokeCore.run(redis, [key], args);
        } else {
          reply = await grantRevoke.run(redis, [key, keys.request(current.grant.request_id)], args);
        }
        if (reply === 'missing') return null;
        if (reply === 'stale') continue;
        const done = arrayReply(reply, key, grantRevoke.name);
        const uses = done[1];
        if (stringAt(done, 0, key, grantRevoke.name) !== 'ok' || typeof uses !== 'number') throw badReply(key, grantRevoke.name, reply);
        return { outcome: 'revoked', grant: { ...checked.data, uses } };
      }
      throw new StoreDataError(key, `changed ${MAX_ATTEMPTS} times in a row while being revoked`, { field: 'grant' });
    },
  };
}
