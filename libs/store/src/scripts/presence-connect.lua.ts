/** Source of the presence-connect script; see its header. */
export const PRESENCE_CONNECT_LUA = `--[[
  presence-connect (2 keys): the newest connection of an agent wins.

  KEYS[1]  agent presence hash  <prefix>:presence:agent:{<agentId>}
  KEYS[2]  presence index zset  <prefix>:presence:agents (member agent id, score expiry)

  ARGV[1]  agent id
  ARGV[2]  presence entry JSON (validated by the caller)
  ARGV[3]  session id
  ARGV[4]  gateway id
  ARGV[5]  connected_at (epoch ms)
  ARGV[6]  last_activity_at (ISO 8601)
  ARGV[7]  TTL (ms)
  ARGV[8]  expiry (epoch ms of the caller's clock): the index score

  Returns 1 when the entry was written, 0 when the stored entry's connection is newer
  (connected_at greater than ARGV[5]) and stays. An equal connected_at is replaced: the later
  call wins.
]]
local stored = tonumber(redis.call('HGET', KEYS[1], 'connected_at_ms'))
if stored and stored > tonumber(ARGV[5]) then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'entry', ARGV[2], 'session_id', ARGV[3], 'gateway_id', ARGV[4],
  'connected_at_ms', ARGV[5], 'last_activity_at', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[8], ARGV[1])
return 1
`;
