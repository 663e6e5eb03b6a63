/**
 * SessionStore on Redis: one small hash per session (owner agent, created, last used).
 */
import type { AgentIdentity } from '@ahp/protocol';
import type { SessionOutcome, SessionStore } from './contracts.js';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, badReply } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { SESSION_OPEN_LUA } from './scripts/session-open.lua.js';

const sessionOpen = new LuaScript('session-open', SESSION_OPEN_LUA);

/** Options of {@link createSessionStore}. */
export interface SessionStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
}

/**
 * Creates the Redis SessionStore. See {@link SessionStore} for the contract.
 *
 * Resuming `requested` and creating `newId` are two single-key steps (Cluster-safe): a requested
 * session that is unknown or expired is not an error, the agent simply gets `newId`.
 *
 * @throws StoreInputError when `newId` is already another agent's session (ids must be fresh
 *   random ids), or when an id cannot be part of a key.
 */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { redis, keys } = options;

  async function run(sessionId: string, agentId: string, now: number, ttlMs: number, create: boolean): Promise<string> {
    const key = keys.session(sessionId);
    const reply = await sessionOpen.run(redis, [key], [agentId, now, ttlMs, create ? '1' : '0']);
    if (reply !== 'resumed' && reply !== 'foreign' && reply !== 'created' && reply !== 'missing') throw badReply(key, sessionOpen.name, reply);
    return reply;
  }

  return {
    async open(agent: AgentIdentity, requested: string | undefined, newId: string, now: number, ttlMs: number): Promise<SessionOutcome> {
      if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new StoreInputError(`session TTL must be a positive integer of milliseconds, got ${ttlMs}`);
      if (requested !== undefined) {
        const resumed = await run(requested, agent.id, now, ttlMs, false);
        if (resumed === 'resumed') return { kind: 'resumed', sessionId: requested };
        if (resumed === 'foreign') return { kind: 'foreign' };
      }
      const created = await run(newId, agent.id, now, ttlMs, true);
      if (created === 'foreign') throw new StoreInputError(`new session id ${newId} is already another agent's session`);
      return { kind: 'created', sessionId: newId };
    },
  };
}
