/**
 * PresenceStore on Redis: one key per agent and per gateway, expiring on their own (PEXPIRE), plus
 * an index ZSET each, scored by expiry, so that listing needs no SCAN.
 */
import { GatewayInfoSchema, PresenceEntrySchema, type GatewayInfo, type PresenceEntry } from '@ahp/protocol';
import type { PresenceStore, PresenceTouch } from './contracts.js';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, badReply, parseStored, parseStoredJson } from './lua.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { PRESENCE_CONNECT_CORE_LUA, PRESENCE_CONNECT_LUA } from './scripts/presence-connect.lua.js';
import { PRESENCE_DISCONNECT_CORE_LUA, PRESENCE_DISCONNECT_LUA } from './scripts/presence-disconnect.lua.js';
import { PRESENCE_TOUCH_CORE_LUA, PRESENCE_TOUCH_LUA } from './scripts/presence-touch.lua.js';
import { describeIssues } from './validate.js';

const presenceConnect = new LuaScript('presence-connect', PRESENCE_CONNECT_LUA);
const presenceTouch = new LuaScript('presence-touch', PRESENCE_TOUCH_LUA);
const presenceDisconnect = new LuaScript('presence-disconnect', PRESENCE_DISCONNECT_LUA);
const presenceConnectCore = new LuaScript('presence-connect-core', PRESENCE_CONNECT_CORE_LUA);
const presenceTouchCore = new LuaScript('presence-touch-core', PRESENCE_TOUCH_CORE_LUA);
const presenceDisconnectCore = new LuaScript('presence-disconnect-core', PRESENCE_DISCONNECT_CORE_LUA);

/**
 * Entries one presence-touch call refreshes at most: a larger batch is split, so that one script
 * (four commands per entry) never holds Redis for more than a fraction of a millisecond.
 */
const TOUCHES_PER_CALL = 256;

/** Options of {@link createPresenceStore}. */
export interface PresenceStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
}

function positiveTtl(ttlMs: number): number {
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new StoreInputError(`TTL must be a positive integer of milliseconds, got ${ttlMs}`);
  return ttlMs;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Creates the Redis PresenceStore. See {@link PresenceStore} for the guarantees and the
 * presence-* scripts for the steps.
 *
 * - "Newest connection wins" compares `connected_at`: a connect whose entry is older than the
 *   stored one is ignored (a slow gateway cannot overwrite a newer connection); equal times are
 *   replaced.
 * - `list(now)` and `listGateways(now)` return the entries whose index score (the caller's
 *   `now + ttlMs` at the last refresh) is after `now`, and remove the expired index members. An
 *   entry whose key is already gone is skipped. One entry that does not parse fails the call with
 *   StoreDataError naming its key.
 * - Entries are validated with their protocol schema before they are written (StoreInputError).
 * - Under Redis Cluster the entry and the index live under different hash tags: the -core script
 *   decides on the entry (newest connection wins, current session only), then the index is
 *   updated in a second command. A crash in between leaves an entry the index misses until its
 *   next touch, or an index member without entry, which `list` skips and prunes by score.
 */
export function createPresenceStore(options: PresenceStoreOptions): PresenceStore {
  const { redis, keys } = options;

  /** Live index members (score after `now`), after removing the expired ones. */
  async function liveMembers(index: string, now: number): Promise<string[]> {
    const [, members] = await redis
      .multi()
      .zRemRangeByScore(index, '-inf', now)
      .zRange(index, `(${now}`, '+inf', { BY: 'SCORE' })
      .exec();
    if (!Array.isArray(members) || !members.every((member) => typeof member === 'string')) {
      throw new StoreDataError(index, 'index did not read back as a list of ids');
    }
    return members;
  }

  function keyOf(build: (id: string) => string, id: string, index: string): string {
    try {
      return build(id);
    } catch (error) {
      throw new StoreDataError(index, `index member ${JSON.stringify(id)} is not an id`, { cause: error });
    }
  }

  function entryFromHash(fields: Record<string, string>, key: string): PresenceEntry {
    const raw = parseStoredJson(fields['entry'] ?? '', key, 'entry');
    const lastActivity = fields['last_activity_at'];
    const merged = isRecord(raw) && lastActivity !== undefined ? { ...raw, last_activity_at: lastActivity } : raw;
    return parseStored(PresenceEntrySchema, merged, key, 'entry');
  }

  /** Cluster mode: one presence-touch-core per agent (each on its own tag, sent together), then one ZADD of the refreshed agents. */
  async function touchSplit(touches: readonly PresenceTouch[], ttl: number, now: number): Promise<number> {
    const replies = await Promise.all(
      touches.map(async ({ agentId, sessionId, at }) => {
        const key = keys.presenceAgent(agentId);
        return { agentId, key, reply: await presenceTouchCore.run(redis, [key], [ttl, sessionId, new Date(at).toISOString()]) };
      }),
    );
    const refreshed: { score: number; value: string }[] = [];
    for (const { agentId, key, reply } of replies) {
      if (reply !== 0 && reply !== 1) throw badReply(key, presenceTouchCore.name, reply);
      if (reply === 1) refreshed.push({ score: now + ttl, value: agentId });
    }
    for (let start = 0; start < refreshed.length; start += TOUCHES_PER_CALL) {
      await redis.zAdd(keys.presenceAgents, refreshed.slice(start, start + TOUCHES_PER_CALL));
    }
    return refreshed.length;
  }

  return {
    async connect(entry: PresenceEntry, ttlMs: number, now: number): Promise<void> {
      const checked = PresenceEntrySchema.safeParse(entry);
      if (!checked.success) throw new StoreInputError(`invalid presence entry: ${describeIssues(checked.error.issues)}`);
      const valid = checked.data;
      const args = [valid.agent.id, JSON.stringify(valid), valid.session_id, valid.gateway_id, Date.parse(valid.connected_at), valid.last_activity_at, positiveTtl(ttlMs), now + ttlMs];
      const entryKey = keys.presenceAgent(valid.agent.id);
      if (!isClusterClient(redis)) {
        await presenceConnect.run(redis, [entryKey, keys.presenceAgents], args);
      } else if ((await presenceConnectCore.run(redis, [entryKey], args)) === 1) {
        await redis.zAdd(keys.presenceAgents, { score: now + ttlMs, value: valid.agent.id });
      }
    },

    async touch(touches: readonly PresenceTouch[], ttlMs: number, now: number): Promise<number> {
      const ttl = positiveTtl(ttlMs);
      if (isClusterClient(redis)) return touchSplit(touches, ttl, now);
      const calls: Promise<unknown>[] = [];
      for (let start = 0; start < touches.length; start += TOUCHES_PER_CALL) {
        const chunk = touches.slice(start, start + TOUCHES_PER_CALL);
        const args: (string | number)[] = [ttl, now + ttl];
        for (const { agentId, sessionId, at } of chunk) args.push(agentId, sessionId, new Date(at).toISOString());
        calls.push(presenceTouch.run(redis, [keys.presenceAgents, ...chunk.map(({ agentId }) => keys.presenceAgent(agentId))], args));
      }
      let refreshed = 0;
      for (const reply of await Promise.all(calls)) {
        if (typeof reply !== 'number') throw badReply(keys.presenceAgents, 'presence-touch', reply);
        refreshed += reply;
      }
      return refreshed;
    },

    async disconnect(agentId: string, sessionId: string, gatewayId?: string): Promise<void> {
      const args = [agentId, sessionId, gatewayId ?? ''];
      if (!isClusterClient(redis)) {
        await presenceDisconnect.run(redis, [keys.presenceAgent(agentId), keys.presenceAgents], args);
      } else if ((await presenceDisconnectCore.run(redis, [keys.presenceAgent(agentId)], args)) === 1 && (await redis.exists(keys.presenceAgent(agentId))) === 0) {
        // Not while a newer connection has written its entry since: its index entry must stay.
        await redis.zRem(keys.presenceAgents, agentId);
      }
    },

    async list(now: number): Promise<PresenceEntry[]> {
      const members = await liveMembers(keys.presenceAgents, now);
      const entryKeys = members.map((id) => keyOf(keys.presenceAgent, id, keys.presenceAgents));
      const hashes = await Promise.all(entryKeys.map(async (key) => ({ key, fields: await redis.hGetAll(key) })));
      return hashes.filter(({ fields }) => Object.keys(fields).length > 0).map(({ key, fields }) => entryFromHash(fields, key));
    },

    async heartbeatGateway(info: GatewayInfo, ttlMs: number, now: number): Promise<void> {
      const checked = GatewayInfoSchema.safeParse(info);
      if (!checked.success) throw new StoreInputError(`invalid gateway info: ${describeIssues(checked.error.issues)}`);
      const valid = checked.data;
      // Two commands (two hash tags, which a cluster cannot run in one MULTI): the entry first, so a
      // crash in between leaves at most an entry the index does not list until the next heartbeat.
      await redis.set(keys.presenceGateway(valid.gateway_id), JSON.stringify(valid), { expiration: { type: 'PX', value: positiveTtl(ttlMs) } });
      await redis.zAdd(keys.presenceGateways, { score: now + ttlMs, value: valid.gateway_id });
    },

    async removeGateway(gatewayId: string): Promise<void> {
      // The entry first: a stale index entry without it is skipped by listGateways.
      await redis.del(keys.presenceGateway(gatewayId));
      await redis.zRem(keys.presenceGateways, gatewayId);
    },

    async listGateways(now: number): Promise<GatewayInfo[]> {
      const members = await liveMembers(keys.presenceGateways, now);
      const infoKeys = members.map((id) => keyOf(keys.presenceGateway, id, keys.presenceGateways));
      const values = await Promise.all(infoKeys.map(async (key) => ({ key, value: await redis.get(key) })));
      const gateways: GatewayInfo[] = [];
      for (const { key, value } of values) {
        if (value !== null) gateways.push(parseStored(GatewayInfoSchema, parseStoredJson(value, key, 'json'), key));
      }
      return gateways;
    },
  };
}
