import { GCRA_TAKE_LUA } from './rate-limit.lua.js';

/**
 * The end of a new hook's branch (inside the EXISTS(key) == 0 branch, after the refusals): writes the
 * correlation and returns 'created'. Shared by open-hook and open-hook-core.
 */
export const OPEN_HOOK_CREATE_LUA = `  redis.call('HSET', key,
    'hook_id', ARGV[1], 'agent_id', ARGV[2], 'session_id', ARGV[3], 'gateway_id', ARGV[4],
    'trigger', ARGV[5], 'status', 'pending', 'created_at', ARGV[6], 'deadline_at', ARGV[7],
    'answers', ARGV[12])
  redis.call('PEXPIRE', key, ARGV[8])
  return { 'created', leased }
`;

/** What open-hook answers for a hook hash that exists (re-sent hook): corrupt, foreign, decided, or joined. Shared by open-hook and open-hook-core. */
export const OPEN_HOOK_EXISTING_LUA = `local fields = redis.call('HMGET', key, 'agent_id', 'status')
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

/** Source of the open-hook script; see its header. */
export const OPEN_HOOK_LUA = `--[[
  open-hook (5 keys): records a hook's correlation, or re-opens it when the SDK re-sends it,
  after counting the hook against the agent's rate limit, and admits a new hook only through the
  agent's plan gate and when the agent (in any of its sessions) owes no overdue signal answer.

  KEYS[1]  hook hash  <prefix>:hook:{<hookId>}
  KEYS[2]  the agent's plan gate  <prefix>:plan-gate:{<agentId>}  (read only)
  KEYS[3]  the agent's rate-limit bucket  <prefix>:ratelimit:{agent:<agentId>}  (see rate-limit)
  KEYS[4]  the agent's plan verdict  <prefix>:plan-gate:{<agentId>}:verdict  (read only)
  KEYS[5]  the agent's unanswered signals  <prefix>:unanswered:{<agentId>}  (read only)

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
  ARGV[11] the plan gate for this hook: '' when it does not apply (not a tool call, or a planning
           tool of the agent's team), 'gate' when it does, 'require' when it does and the team
           requires an approved plan even before the agent submitted one
  ARGV[12] '1' when the client must answer block/control signals (stored as the hash's 'answers'
           field for decide-hook, and checked against KEYS[5]); '0' for clients exempted
  ARGV[13] oldest grace end still enforced (epoch ms): now minus the signal TTL, since a signal
           whose record expired can no longer be answered
  ARGV[14] lease: take up to this many tokens when the bucket has them (optional, default 1)
  ARGV[15] share: take at most 1/share of what the bucket holds (optional, default 1)

  Returns { 'created', leased } when no hash existed and a pending one now does, owned by ARGV[4]
  (its fields are exactly the arguments, so they are not read back; leased is how many tokens
  beyond this hook's own were taken for the gateway to spend locally), or { kind, HGETALL of the hash }
  where kind is
    'joined'   the hook is pending and ARGV[4] is now its owner (its deadline, trigger and
               session stay those of the first open; its TTL is unchanged)
    'decided'  the hook is decided; the hash holds the decision; nothing changed
  or { 'foreign' } when the hook id belongs to another agent (nothing changed),
  or { 'unanswered', signal id, … } when no hash existed, ARGV[12] is '1' and the agent has
     signals whose answer grace ended by ARGV[6] (up to 20, oldest first); nothing was written,
  or { 'gated', request id } when no hash existed, ARGV[11] is set and the agent has a pending
     plan approval (a member of KEYS[2]); nothing was written,
  or { 'plan_required', status, request id } when no hash existed, ARGV[11] is set, nothing is
     pending and the agent's last settled plan was not approved (status 'rejected' or 'expired'),
     or ARGV[11] is 'require' and no plan was ever settled (status 'none', request id ''); nothing
     was written,
  or { 'corrupt', HGETALL } when the hash has no agent_id (nothing changed),
  or { 'limited', retry after (µs) } when the agent's bucket has no token (nothing changed).

  Ownership and decision live in one hash, changed only by this script and decide-hook, so a
  decision is either visible here (status 'decided') or routed to the owner this call sets.

  The gate and the answers are checked here, in the script the hook path runs anyway, so that
  enforcing them costs no round trip and leaves no window between a decision and its
  enforcement: cas-request keeps KEYS[2] equal to the agent's pending plan approvals and writes
  KEYS[4] when a plan settles, in the same step; decide-hook adds to KEYS[5] and respond-signal
  removes from it. The rate
  limit likewise: every hook frame takes one token from the same bucket the gateway's limiter
  uses for the agent's other frames, before anything else happens — or, with ARGV[14], a lease
  of several, which the gateway then spends on the agent's next frames and hooks (a hook that
  spends a leased token is opened with ARGV[9] = '' and costs the bucket nothing here).
]]
${GCRA_TAKE_LUA}
local leased, taken_at, tat = 0, 0, 0
if ARGV[9] ~= '' then
  local allowed, wait, _, granted, now_us, next_tat = gcra_take(KEYS[3], tonumber(ARGV[9]), tonumber(ARGV[10]), 1, tonumber(ARGV[14] or '1'), tonumber(ARGV[15] or '1'))
  if allowed == 0 then
    return { 'limited', wait }
  end
  leased, taken_at, tat = granted - 1, now_us, next_tat
end
local key = KEYS[1]
local function open_hook()
-- One read answers for most hooks: a new hook (no hash) of an agent that owes no answer (no set of
-- unanswered signals: Redis deletes it when respond-signal removes its last member). Only when one
-- of the two exists does it take a second read to tell which.
local tracked = ARGV[12] == '1'
local present = tracked and redis.call('EXISTS', key, KEYS[5]) or redis.call('EXISTS', key)
local exists = present == 2 or (present == 1 and (not tracked or redis.call('EXISTS', key) == 1))
if not exists then
  if tracked and present == 1 then
    local due = redis.call('ZRANGEBYSCORE', KEYS[5], ARGV[13], ARGV[6], 'LIMIT', 0, 20)
    if #due > 0 then
      table.insert(due, 1, 'unanswered')
      return due
    end
  end
  if ARGV[11] ~= '' then
    -- One read for an agent with no plan state at all (most agents, every hook): neither a pending
    -- plan (the set, deleted by Redis when its last member goes) nor a settled one.
    local planKeys = redis.call('EXISTS', KEYS[2], KEYS[4])
    local verdict = { false, false }
    if planKeys > 0 then
      -- With one of the two keys, read the verdict first: if it exists, the set does not.
      if planKeys == 1 then
        verdict = redis.call('HMGET', KEYS[4], 'status', 'request_id')
      end
      if not verdict[1] then
        local pendingPlan = redis.call('SRANDMEMBER', KEYS[2])
        if pendingPlan then
          return { 'gated', pendingPlan }
        end
      end
    end
    if verdict[1] then
      if verdict[1] ~= 'approved' then
        return { 'plan_required', verdict[1], verdict[2] or '' }
      end
    elseif ARGV[11] == 'require' then
      return { 'plan_required', 'none', '' }
    end
  end
${OPEN_HOOK_CREATE_LUA}end
${OPEN_HOOK_EXISTING_LUA}end
local result = open_hook()
-- Only a new hook hands a lease to the gateway (with the 'created' answer). Any other answer gives
-- the extra tokens back, so re-sends and refusals cost the agent one token as they always did.
if leased > 0 and result[1] ~= 'created' then
  local back = tat - tonumber(ARGV[9]) * leased
  if back > taken_at then
    redis.call('SET', KEYS[3], string.format('%.0f', back), 'PX', math.ceil((back - taken_at) / 1000))
  else
    redis.call('DEL', KEYS[3])
  end
end
return result`;
