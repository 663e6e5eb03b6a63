/** Source of the presence-touch script; see its header. */
export const PRESENCE_TOUCH_LUA = `--[[
  presence-touch (2 keys): refreshes an agent's entry while the session is still its current one.

  KEYS[1]  agent presence hash  <prefix>:presence:agent:{<agentId>}
  KEYS[2]  presence index zset  <prefix>:presence:agents

  ARGV[1]  agent id
  ARGV[2]  session id
  ARGV[3]  last_activity_at (ISO 8601)
  ARGV[4]  TTL (ms)
  ARGV[5]  expiry (epoch ms): the index score

  Returns 1 when refreshed, 0 when the entry is gone or belongs to another session.
]]
if redis.call('HGET', KEYS[1], 'session_id') ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], 'last_activity_at', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return 1
`;
