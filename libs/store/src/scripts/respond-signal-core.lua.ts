/** Source of respond-signal-core: respond-signal for Redis Cluster, on the signal record's tag only (signal-store.ts). */
export const RESPOND_SIGNAL_CORE_LUA = `--[[
  respond-signal-core (1 key): the record part of respond-signal — the first valid answer wins.
  The caller then removes the signal from the session's unanswered set (on 'recorded',
  'duplicate' and 'conflict', so a re-sent answer repairs a crash) and appends the log line (on
  'recorded' only: a crash in between loses that line, never the answer).

  KEYS[1]  signal record hash <prefix>:signal:{<signalId>}
  ARGV[1..4], ARGV[9]  as respond-signal (ARGV[5..8] unused)

  Returns what respond-signal returns.
]]
local record = KEYS[1]
if redis.call('EXISTS', record) == 0 then
  return { 'not_found' }
end
local r = redis.call('HMGET', record, 'agent_id', 'intensity', 'response', 'answer')
if not r[1] or not r[2] then
  return { 'corrupt', redis.call('HGETALL', record) }
end
if r[1] ~= ARGV[1] then
  return { 'forbidden' }
end
if r[2] ~= ARGV[2] then
  return { 'invalid_action', r[2] }
end
if r[3] then
  if (r[4] and r[4] == ARGV[9]) or (not r[4] and r[3] == ARGV[3]) then
    return { 'duplicate', redis.call('HGETALL', record) }
  end
  return { 'conflict', redis.call('HGETALL', record) }
end
redis.call('HSET', record, 'response', ARGV[3], 'answer', ARGV[9])
return { 'recorded', redis.call('HGETALL', record) }
`;
