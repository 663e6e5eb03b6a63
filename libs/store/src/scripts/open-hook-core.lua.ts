/** Source of open-hook-core: open-hook for Redis Cluster, on the hook's tag only (hook-store.ts `openSplit`). */
export const OPEN_HOOK_CORE_LUA = `--[[
  open-hook-core (1 key): open-hook without the reads of other tags. The caller took the rate-limit
  token and read the plan gate, plan verdict and unanswered signals just before (each on its own
  tag) and passes what would refuse a new hook; a plan submitted between those reads and this
  script no longer blocks a tool call already on its way (docs/deploy.md §8).

  KEYS[1]  hook hash <prefix>:hook:{<hookId>}
  ARGV[1..8], ARGV[12]  as open-hook
  ARGV[14..]  the refusal of a new hook, when the pre-reads found one: { 'unanswered', ids… },
              { 'gated', request id } or { 'plan_required', status, request id }; absent to admit

  Returns what open-hook returns (never 'limited').
]]
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then
  if #ARGV >= 14 then
    return { unpack(ARGV, 14) }
  end
  redis.call('HSET', key,
    'hook_id', ARGV[1], 'agent_id', ARGV[2], 'session_id', ARGV[3], 'gateway_id', ARGV[4],
    'trigger', ARGV[5], 'status', 'pending', 'created_at', ARGV[6], 'deadline_at', ARGV[7],
    'answers', ARGV[12])
  redis.call('PEXPIRE', key, ARGV[8])
  return { 'created' }
end
local fields = redis.call('HMGET', key, 'agent_id', 'status')
if not fields[1] then
  return { 'corrupt', redis.call('HGETALL', key) }
end
if fields[1] ~= ARGV[2] then
  return { 'foreign' }
end
if fields[2] == 'decided' then
  return { 'decided', redis.call('HGETALL', key) }
end
redis.call('HSET', key, 'gateway_id', ARGV[4])
return { 'joined', redis.call('HGETALL', key) }
`;
