/**
 * presence-touch, one step (a single Redis: a batch of agents and the index in one call) and split
 * (Redis Cluster: one call per agent on its own tag, then one ZADD of the refreshed agents to the
 * index), built from one fragment: the refresh of one agent's entry.
 */

/** Defines touch(key, sessionId, at): refreshes the entry while its session is current; true when it did. ARGV[1] is the TTL. */
const TOUCH_ENTRY = `local function touch(key, sessionId, at)
  if redis.call('HGET', key, 'session_id') ~= sessionId then
    return false
  end
  redis.call('HSET', key, 'last_activity_at', at)
  redis.call('PEXPIRE', key, ARGV[1])
  return true
end
`;

/** Source of the presence-touch script; see its header. */
export const PRESENCE_TOUCH_LUA = `--[[
  presence-touch (1 + N keys): refreshes agents' entries, each while its session is still the
  agent's current one. A gateway sends the refreshes it gathered in the last second together.

  KEYS[1]    presence index zset  <prefix>:presence:agents
  KEYS[1+i]  agent presence hash  <prefix>:presence:agent:{<agentId i>}, for i = 1..N

  ARGV[1]    TTL (ms)
  ARGV[2]    expiry (epoch ms): the index score
  ARGV[3i], ARGV[3i+1], ARGV[3i+2]   agent id, session id and last_activity_at (ISO 8601) of agent i

  Returns how many entries were refreshed (an entry that is gone or belongs to another session
  is left alone).
]]
${TOUCH_ENTRY}local refreshed = 0
for i = 2, #KEYS do
  local base = 3 * (i - 1)
  if touch(KEYS[i], ARGV[base + 1], ARGV[base + 2]) then
    redis.call('ZADD', KEYS[1], ARGV[2], ARGV[base])
    refreshed = refreshed + 1
  end
end
return refreshed
`;

/** Source of presence-touch-core: presence-touch of one agent for Redis Cluster; the caller adds the refreshed agents to the index. */
export const PRESENCE_TOUCH_CORE_LUA = `--[[
  presence-touch-core (1 key): refreshes one agent's entry while its session is the current one.

  KEYS[1]  agent presence hash  <prefix>:presence:agent:{<agentId>}
  ARGV[1]  TTL (ms)
  ARGV[2]  session id
  ARGV[3]  last_activity_at (ISO 8601)

  Returns 1 when refreshed, 0 when the entry is gone or belongs to another session.
]]
${TOUCH_ENTRY}if touch(KEYS[1], ARGV[2], ARGV[3]) then
  return 1
end
return 0
`;
