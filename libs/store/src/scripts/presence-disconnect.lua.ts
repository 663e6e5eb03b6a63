/** Source of the presence-disconnect script; see its header. */
export const PRESENCE_DISCONNECT_LUA = `--[[
  presence-disconnect (2 keys): compare-and-delete of an agent's entry.

  KEYS[1]  agent presence hash  <prefix>:presence:agent:{<agentId>}
  KEYS[2]  presence index zset  <prefix>:presence:agents

  ARGV[1]  agent id
  ARGV[2]  session id of the closing connection
  ARGV[3]  gateway id of the closing connection, or '' to match any gateway

  Returns 1 when the entry was removed, 0 when it belongs to another session or gateway (a newer
  connection, possibly a resumed session on another gateway) or is already gone.
]]
local current = redis.call('HMGET', KEYS[1], 'session_id', 'gateway_id')
if current[1] ~= ARGV[2] then
  return 0
end
if ARGV[3] ~= '' and current[2] ~= ARGV[3] then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;
