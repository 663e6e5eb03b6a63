/** Source of the hook-delivered script; see its header. */
export const HOOK_DELIVERED_LUA = `--[[
  hook-delivered (1 key): records when the gateway sent a hook's decision to the agent, in the
  hook's drill-down hash, only while that hash exists (decide-hook wrote it: the hook sent
  signals) and only the first time (a decision re-sent after a reconnect keeps the first time).

  KEYS[1]  hook drill-down hash <prefix>:hook:{<hookId>}:detail
  ARGV[1]  delivered_at (epoch ms)
  ARGV[2]  how: 'ws' or 'http'

  Returns 1 when recorded now, 0 otherwise.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if redis.call('HSETNX', KEYS[1], 'delivered_at', ARGV[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'delivered_via', ARGV[2])
return 1
`;
