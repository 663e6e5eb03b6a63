/** Source of the hooks-delivered script; see its header. */
export const HOOKS_DELIVERED_LUA = `--[[
  hooks-delivered (1 key): records when a gateway sent the decisions of hooks without signals to
  their agents, many hooks in one call: one hash per gateway and minute of decision, so a flush
  costs a few commands whatever the number of hooks in it (docs/console.md "Hook drill-down").
  A hook already in the hash keeps its first time (a decision re-sent after a reconnect).

  KEYS[1]  <prefix>:gw:{<gatewayId>}:delivered:<minute>
  ARGV[1]  TTL (ms) given to the hash: the decision TTL plus a minute, so it outlives the hook
           records of its minute
  ARGV[2..] pairs: hook id, '<delivered_at>:<ws|http>'

  Returns the number of hooks recorded now.
]]
local ids = {}
for i = 2, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
end
local known = redis.call('HMGET', KEYS[1], unpack(ids))
local fresh = {}
for i = 1, #ids do
  if not known[i] then
    fresh[#fresh + 1] = ids[i]
    fresh[#fresh + 1] = ARGV[2 * i + 1]
  end
end
if #fresh > 0 then
  redis.call('HSET', KEYS[1], unpack(fresh))
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return #fresh / 2
`;
