import { GCRA_TAKE_LUA } from './rate-limit.lua.js';

/** Source of the open-hook script; see its header. */
export const OPEN_HOOK_LUA = `--[[
  open-hook (3 keys): records a hook's correlation, or re-opens it when the SDK re-sends it,
  after counting the hook against the agent's rate limit.

  KEYS[1]  hook hash  <prefix>:hook:{<hookId>}
  KEYS[2]  the agent's plan gate  <prefix>:plan-gate:{<agentId>}  (read only)
  KEYS[3]  the agent's rate-limit bucket  <prefix>:ratelimit:{agent:<agentId>}  (see rate-limit)

  ARGV[1]  hook id
  ARGV[2]  agent id
  ARGV[3]  session id
  ARGV[4]  gateway id: the gateway that holds the agent's socket now
  ARGV[5]  trigger
  ARGV[6]  now (epoch ms)
  ARGV[7]  deadline (epoch ms)
  ARGV[8]  TTL of a new pending hook (ms): time left to the deadline plus the decision TTL
  ARGV[9]  the rate limit's emission interval (µs), '' for no limit
  ARGV[10] the rate limit's burst

  Returns { 'created' } when no hash existed and a pending one now does, owned by ARGV[4] (its
  fields are exactly the arguments, so they are not read back), or { kind, HGETALL of the hash }
  where kind is
    'joined'   the hook is pending and ARGV[4] is now its owner (its deadline, trigger and
               session stay those of the first open; its TTL is unchanged)
    'decided'  the hook is decided; the hash holds the decision; nothing changed
  or { 'foreign' } when the hook id belongs to another agent (nothing changed),
  or { 'gated', request id } when no hash existed, the trigger is 'pre-tool-use' and the agent has
     a pending plan approval (a member of KEYS[2]); nothing was written,
  or { 'corrupt', HGETALL } when the hash has no agent_id (nothing changed),
  or { 'limited', retry after (µs) } when the agent's bucket has no token (nothing changed).

  Ownership and decision live in one hash, changed only by this script and decide-hook, so a
  decision is either visible here (status 'decided') or routed to the owner this call sets.

  The gate is checked here, in the script the hook path runs anyway, so that enforcing it costs no
  round trip; cas-request keeps KEYS[2] equal to the agent's pending plan approvals. The rate
  limit likewise: every hook frame takes one token from the same bucket the gateway's limiter
  uses for the agent's other frames, before anything else happens.
]]
${GCRA_TAKE_LUA}
if ARGV[9] ~= '' then
  local allowed, wait = gcra_take(KEYS[3], tonumber(ARGV[9]), tonumber(ARGV[10]), 1, 1, 1)
  if allowed == 0 then
    return { 'limited', wait }
  end
end
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then
  if ARGV[5] == 'pre-tool-use' then
    local pendingPlan = redis.call('SRANDMEMBER', KEYS[2])
    if pendingPlan then
      return { 'gated', pendingPlan }
    end
  end
  redis.call('HSET', key,
    'hook_id', ARGV[1], 'agent_id', ARGV[2], 'session_id', ARGV[3], 'gateway_id', ARGV[4],
    'trigger', ARGV[5], 'status', 'pending', 'created_at', ARGV[6], 'deadline_at', ARGV[7])
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
