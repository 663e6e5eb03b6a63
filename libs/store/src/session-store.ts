/**
 * SessionStore on Redis: one small hash per session (owner agent, created, last used).
 */
import type { SessionStore } from './contracts.js';
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
 * Creates the Redis SessionStore. See {@link SessionStore} for the contract. Each call is one
 * single-key script (Cluster-safe).
 *
 * @throws StoreInputError for a TTL that is not a positive whole number of ms, or an id that
 *   cannot be part of a key.
 */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { redis, keys } = options;

  async function run(sessionId: string, agentId: string, now: number, ttlMs: number, create: boolean): Promise<'resumed' | 'foreign' | 'created' | 'missing'> {
    if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new StoreInputError(`session TTL must be a positive integer of milliseconds, got ${ttlMs}`);
    const key = keys.session(sessionId);
    const reply = await sessionOpen.run(redis, [key], [agentId, now, ttlMs, create ? '1' : '0']);
    if (reply !== 'resumed' && reply !== 'foreign' && reply !== 'created' && reply !== 'missing') throw badReply(key, sessionOpen.name, reply);
    return reply;
  }

  return {
    async resume(agentId, sessionId, now, ttlMs) {
      const reply = await run(sessionId, agentId, now, ttlMs, false);
      if (reply === 'created') throw badReply(keys.session(sessionId), sessionOpen.name, reply);
      return reply;
    },
    async create(agentId, sessionId, now, ttlMs) {
      const reply = await run(sessionId, agentId, now, ttlMs, true);
      if (reply === 'missing') throw badReply(keys.session(sessionId), sessionOpen.name, reply);
      return reply;
    },
  };
}
