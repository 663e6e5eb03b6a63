/** Number of ARGV values per signal of a decision, after the fixed ones. */
export const DECIDE_HOOK_ARGS_PER_SIGNAL = 5;
/** Number of fixed ARGV values before the per-signal ones. */
export const DECIDE_HOOK_FIXED_ARGS = 8;

/** Source of the decide-hook script; see its header. */
export const DECIDE_HOOK_LUA = `--[[
  decide-hook (2 + n keys): stores a hook's decision if none is stored yet (first writer wins),
  with a signal record and a signal-log entry for each of its n signals.

  KEYS[1]        hook hash            <prefix>:hook:{<hookId>}
  KEYS[2]        signal log stream    <prefix>:signal-log
  KEYS[3..2+n]   signal record hashes <prefix>:signal:{<signalId>}, in signal order

  ARGV[1]  decision JSON (validated by the caller)
  ARGV[2]  decided_at (epoch ms)
  ARGV[3]  decision TTL (ms): how long the decided hook stays readable
  ARGV[4]  signal record TTL (ms)
  ARGV[5]  signal log MAXLEN (approximate trimming)
  ARGV[6]  log timestamp (ISO 8601) of the entries written now
  ARGV[7]  the decision's trigger, which must be the hook's
  ARGV[8]  the hooks configuration version of the decision, '' when it has none
  then, for signal i, ARGV[9 + 5(i-1) ..]: signal id, intensity, source, type, rule ('' for none)

  Each log entry also carries config_version (when given), rule (when given) and latency_ms: the
  time from the hook's created_at (set by open-hook) to decided_at.

  Returns
    { 'first',  ARGV[1], owner gateway id }   stored now
    { 'stored', stored decision JSON, owner gateway id }   an earlier decision stands; nothing changed
    { 'missing' }                             no correlation (never opened or expired); nothing changed
    { 'mismatch', stored trigger }            the decision is for another trigger; nothing changed

  Routing happens after this script, by the caller, with XADD to the owner's decision stream
  (<prefix>:gw:{<owner>}:decisions): the owner is only known in here, and a Lua script must
  declare its keys up front. No decision can be lost in between: open-hook, the only writer of
  the owner, runs atomically on the same hash. If it runs before this script, the owner returned
  here is the new one; if it runs after, it sees status 'decided' and answers the agent with the
  stored decision itself. The caller routes on 'stored' as well, so a worker that died between
  this script and its XADD is repaired by the job's retry; receivers tolerate duplicates.

  A signal record that already exists is left alone (its response must survive); its log entry
  is still written.
]]
local hook = KEYS[1]
local h = redis.call('HMGET', hook, 'status', 'decision', 'gateway_id', 'agent_id', 'session_id', 'trigger', 'hook_id', 'created_at')
if not h[1] then
  return { 'missing' }
end
if h[1] == 'decided' then
  return { 'stored', h[2] or '', h[3] or '' }
end
if h[6] ~= ARGV[7] then
  return { 'mismatch', h[6] or '' }
end
redis.call('HSET', hook, 'status', 'decided', 'decision', ARGV[1], 'decided_at', ARGV[2])
redis.call('PEXPIRE', hook, ARGV[3])
local agent, session, trigger, hookId = h[4] or '', h[5] or '', h[6], h[7] or ''
local latency = nil
if h[8] and tonumber(h[8]) and tonumber(ARGV[2]) then
  latency = math.max(tonumber(ARGV[2]) - tonumber(h[8]), 0)
end
for i = 1, #KEYS - 2 do
  local base = ${DECIDE_HOOK_FIXED_ARGS} + (i - 1) * ${DECIDE_HOOK_ARGS_PER_SIGNAL}
  local signalId, intensity, source, signalType, rule = ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], ARGV[base + 4], ARGV[base + 5]
  local record = KEYS[i + 2]
  if redis.call('EXISTS', record) == 0 then
    redis.call('HSET', record,
      'signal_id', signalId, 'hook_id', hookId, 'agent_id', agent, 'session_id', session,
      'trigger', trigger, 'intensity', intensity, 'source', source, 'type', signalType)
    redis.call('PEXPIRE', record, ARGV[4])
  end
  local entry = { 'kind', 'signal', 'timestamp', ARGV[6], 'hook', trigger, 'intensity', intensity,
    'source', source, 'consumed', '0', 'signal_id', signalId, 'hook_id', hookId,
    'type', signalType, 'agent_id', agent, 'session_id', session }
  if rule ~= '' then
    entry[#entry + 1] = 'rule'
    entry[#entry + 1] = rule
  end
  if ARGV[8] ~= '' then
    entry[#entry + 1] = 'config_version'
    entry[#entry + 1] = ARGV[8]
  end
  if latency then
    entry[#entry + 1] = 'latency_ms'
    entry[#entry + 1] = string.format('%d', latency)
  end
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', unpack(entry))
end
return { 'first', ARGV[1], h[3] or '' }
`;
