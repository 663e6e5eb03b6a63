/**
 * Lua shared by rate-limit and open-hook: `gcra_take(key, interval, burst, cost, lease, share)`,
 * one GCRA step on the bucket `key` (see rate-limit's header), returning
 * `allowed (0|1), retry_after_us, remaining, granted, now_us, tat_us` (the last two: the clock it
 * read and the TAT it stored, for a caller that hands tokens back).
 */
export const GCRA_TAKE_LUA = `
local function gcra_take(key, interval, burst, cost, lease, share)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local stored = redis.call('GET', key)
  local tat = now
  if stored then
    local value = tonumber(stored)
    if value and value > now then tat = value end
  end
  local available = math.floor((now + interval * burst - tat) / interval)
  if available < cost then
    return 0, tat + interval * cost - interval * burst - now, 0, 0
  end
  local granted = math.min(lease, math.floor(available / share), available)
  if granted < cost then granted = cost end
  local next_tat = tat + interval * granted
  redis.call('SET', key, string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000))
  return 1, 0, available - granted, granted, now, next_tat
end
`;

/** Source of the rate-limit script; see its header. */
export const RATE_LIMIT_LUA = `--[[
  rate-limit (1 key): one step of GCRA (the "generic cell rate algorithm": a token bucket kept as
  a single number, the theoretical arrival time TAT) for one subject.

  KEYS[1]  bucket  <prefix>:ratelimit:{<kind>:<subject>}   string: TAT in microseconds (Redis clock)

  ARGV[1]  emission interval in microseconds (1e6 / rate per second), integer >= 1
  ARGV[2]  burst: how many requests a full bucket allows at once, integer >= 1
  ARGV[3]  cost of this request in tokens, integer from 1 to burst
  ARGV[4]  lease: take up to this many tokens when the bucket has them, integer >= ARGV[3]
           (optional; defaults to ARGV[3])
  ARGV[5]  share: take at most 1/share of the tokens the bucket holds beyond the cost, integer
           >= 1 (optional; defaults to 1)

  Returns { allowed, retry_after_us, remaining, granted }
    { 1, 0, n, g }  allowed: g tokens taken (the cost, or more for a lease); n more tokens
                    remain in the bucket right now
    { 0, w, 0, 0 }  refused, nothing changed; the cost is available in w microseconds

  The bucket holds floor((now + burst * interval - TAT) / interval) tokens, TAT = max(TAT, now).
  Taking g tokens moves TAT by g * interval. Time comes from Redis (TIME), so every gateway counts
  on one clock, whatever their own clocks say. The key expires when the bucket is full again: an
  idle subject costs no memory.

  A lease lets a gateway take several tokens in one call and spend them locally: the tokens are
  counted here before they are used, so no subject ever gets more than its limit; the share keeps
  a nearly empty bucket from being held by one gateway while the subject talks to another.
]]
${GCRA_TAKE_LUA}
local allowed, wait, remaining, granted = gcra_take(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4] or ARGV[3]), tonumber(ARGV[5] or '1'))
return { allowed, wait, remaining, granted }
`;
