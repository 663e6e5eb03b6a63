/**
 * Sources of the rule-counter scripts. Each remembers the hook ids it has counted — the
 * violation scripts the newest `ARGV[3]` of them, in the hash itself; count-tool-call in a mark
 * key per hook — so that a hook evaluated twice (a stalled job run again by another worker)
 * counts once and gets the same answer both times.
 */

/** Lua shared by the scripts: remember `mark` in the hash's `order` field, forgetting the oldest beyond `limit`. */
const REMEMBER = `
local function remember(key, mark, limit)
  local marks = {}
  local order = redis.call('HGET', key, 'order')
  if order then
    for m in string.gmatch(order, '%S+') do marks[#marks + 1] = m end
  end
  marks[#marks + 1] = mark
  while #marks > limit do
    redis.call('HDEL', key, table.remove(marks, 1))
  end
  redis.call('HSET', key, 'order', table.concat(marks, ' '))
end
`;

/** Source of the record-violation script; see its header. */
export const RECORD_VIOLATION_LUA = `--[[
  record-violation (1 key): one more consecutive violation of a rule by an agent.

  KEYS[1]  counter hash  <prefix>:rule:{<agentId>}:<ruleKey>
           n = consecutive violations; v:<hookId> = the count this hook got; c:<hookId> = a
           compliance was recorded for this hook; order = remembered marks, oldest first

  ARGV[1]  hook id
  ARGV[2]  TTL (ms): the counter expires this long after its last violation
  ARGV[3]  how many hook marks to remember

  Returns the consecutive violations, this one included; for a hook already counted, the count
  it got then (nothing changes but the TTL).
]]
${REMEMBER}
local key = KEYS[1]
local mark = 'v:' .. ARGV[1]
local earlier = redis.call('HGET', key, mark)
if earlier then
  redis.call('PEXPIRE', key, ARGV[2])
  return tonumber(earlier)
end
local n = redis.call('HINCRBY', key, 'n', 1)
redis.call('HSET', key, mark, tostring(n))
remember(key, mark, tonumber(ARGV[3]))
redis.call('PEXPIRE', key, ARGV[2])
return n
`;

/** Source of the record-compliance script; see its header. */
export const RECORD_COMPLIANCE_LUA = `--[[
  record-compliance (1 key): the agent complied with a rule; its consecutive count restarts at 0.

  KEYS[1]  counter hash  <prefix>:rule:{<agentId>}:<ruleKey>  (see record-violation)

  ARGV[1]  hook id
  ARGV[2]  TTL (ms) of a counter this call creates (an existing one keeps its TTL)
  ARGV[3]  how many hook marks to remember

  Returns 1 when the count was reset now, 0 when this hook's compliance was already recorded
  (nothing changes: a re-run of an old hook must not reset a newer streak).
]]
${REMEMBER}
local key = KEYS[1]
local mark = 'c:' .. ARGV[1]
if redis.call('HEXISTS', key, mark) == 1 then
  return 0
end
local existed = redis.call('EXISTS', key)
redis.call('HSET', key, 'n', '0', mark, '1')
remember(key, mark, tonumber(ARGV[3]))
if existed == 0 then
  redis.call('PEXPIRE', key, ARGV[2])
end
return 1
`;

/** Source of the count-tool-call script; see its header. */
export const COUNT_TOOL_CALL_LUA = `--[[
  count-tool-call (2 keys): one more identical tool call in a session (stuttering breaker).

  KEYS[1]  calls hash  <prefix>:breaker:{<sessionId>}:calls   s:<signature> = calls with it
  KEYS[2]  this hook's mark  <prefix>:breaker:{<sessionId>}:call:<hookId>   string: the count
           the hook got (same tag as KEYS[1])

  ARGV[1]  signature digest (hex)
  ARGV[2]  TTL (ms): the session's counts expire this long after its last call
  ARGV[3]  TTL (ms) of the mark: as long as the hook may be evaluated again (its deadline)

  Returns the calls with this signature in the session, this one included; for a hook already
  counted, the count it got then (the count is taken back, the mark answers).

  The mark is a key of its own that expires with the hook, so remembering a hook costs one small
  write and nothing has to be trimmed (SET NX GET: Redis 7.0 or later).
]]
local field = 's:' .. ARGV[1]
local n = redis.call('HINCRBY', KEYS[1], field, 1)
local earlier = redis.call('SET', KEYS[2], n, 'NX', 'GET', 'PX', ARGV[3])
if earlier then
  redis.call('HINCRBY', KEYS[1], field, -1)
  n = tonumber(earlier)
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n
`;

/** Source of the count-iteration script; see its header. */
export const COUNT_ITERATION_LUA = `--[[
  count-iteration (1 key): the session reached a loop iteration (iteration breaker).

  KEYS[1]  iterations set  <prefix>:breaker:{<sessionId>}:iterations

  ARGV[1]  the iteration number
  ARGV[2]  TTL (ms): the set expires this long after its last change

  Returns how many distinct iterations the session has had. Idempotent by nature: the same
  iteration twice counts once.
]]
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('SCARD', KEYS[1])
`;
