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
local refreshed = 0
for i = 2, #KEYS do
  local base = 3 * (i - 1)
  if redis.call('HGET', KEYS[i], 'session_id') == ARGV[base + 1] then
    redis.call('HSET', KEYS[i], 'last_activity_at', ARGV[base + 2])
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    redis.call('ZADD', KEYS[1], ARGV[2], ARGV[base])
    refreshed = refreshed + 1
  end
end
return refreshed
`;
