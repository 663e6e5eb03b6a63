/** Source of the enforcement-state script; see its header. */
export const ENFORCEMENT_STATE_LUA = `--[[
  enforcement-state (3 + n keys, all on the agent's tag): reads an agent's enforcement state and,
  when asked, resets the parts named, in one step.

  KEYS[1]      unanswered signals  <prefix>:unanswered:{<agentId>}           (zset: signal id, score = end of grace)
  KEYS[2]      breaker calls       <prefix>:breaker:{<agentId>}:calls        (hash: s:<digest> = identical calls)
  KEYS[3]      breaker iterations  <prefix>:breaker:{<agentId>}:iterations   (set of iteration numbers)
  KEYS[4..m]   the rule counters   <prefix>:rule:{<agentId>}:<ruleKey>       (hash: n = consecutive violations)
  KEYS[m+1..]  the hooks' call marks  <prefix>:breaker:{<agentId>}:call:<hookId>  (the count a hook got)

  ARGV[1]  'reset' or 'read'
  ARGV[2]  '1' to reset the breakers (calls, iterations, call marks), else '0'
  ARGV[3]  '1' to reset the hold (unanswered signals), else '0'
  ARGV[4]  '1' to reset the escalation counters, else '0'
  ARGV[5]  how many rule counters follow KEYS[3] (m - 3)
  ARGV[6]  most signal ids listed

  Returns { { unanswered, id… }, { distinct calls, highest count, iterations }, { n of each rule key, false when gone } }:
  the state just before the reset (read always, whatever the flags). The call marks are dropped
  with the breakers so that a hook evaluated again after the reset does not get its old count back.
]]
local resetting = ARGV[1] == 'reset'
local rules = tonumber(ARGV[5])
local listed = tonumber(ARGV[6])

local hold = { redis.call('ZCARD', KEYS[1]) }
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, listed - 1)) do hold[#hold + 1] = id end

local calls = redis.call('HGETALL', KEYS[2])
local distinct, highest = 0, 0
for i = 1, #calls, 2 do
  if string.sub(calls[i], 1, 2) == 's:' then
    local n = tonumber(calls[i + 1]) or 0
    distinct = distinct + 1
    if n > highest then highest = n end
  end
end
local breakers = { distinct, highest, redis.call('SCARD', KEYS[3]) }

local counters = {}
for i = 1, rules do
  counters[i] = redis.call('HGET', KEYS[3 + i], 'n')
end

if resetting then
  if ARGV[2] == '1' then
    redis.call('DEL', KEYS[2], KEYS[3])
    for i = 4 + rules, #KEYS do redis.call('DEL', KEYS[i]) end
  end
  if ARGV[3] == '1' then redis.call('DEL', KEYS[1]) end
  if ARGV[4] == '1' then
    for i = 1, rules do redis.call('DEL', KEYS[3 + i]) end
  end
end
return { hold, breakers, counters }
`;
