/** Source of the rate-limit script; see its header. */
export const RATE_LIMIT_LUA = `--[[
  rate-limit (1 key): one step of GCRA (the "generic cell rate algorithm": a token bucket kept as
  a single number, the theoretical arrival time TAT) for one subject.

  KEYS[1]  bucket  <prefix>:ratelimit:{<kind>:<subject>}   string: TAT in microseconds (Redis clock)

  ARGV[1]  emission interval in microseconds (1e6 / rate per second), integer >= 1
  ARGV[2]  burst: how many requests a full bucket allows at once, integer >= 1
  ARGV[3]  cost of this request in tokens, integer from 1 to burst

  Returns { allowed, retry_after_us, remaining }
    { 1, 0, n }   allowed and counted; n more requests of cost 1 would be allowed right now
    { 0, w, 0 }   refused, nothing changed; the same request is allowed in w microseconds

  The bucket is full when TAT <= now. A request of cost c moves TAT to max(TAT, now) + c * interval
  and is allowed when that stays within burst * interval of now. Time comes from Redis (TIME), so
  every gateway counts on one clock, whatever their own clocks say. The key expires when the
  bucket is full again: an idle subject costs no memory.
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local stored = redis.call('GET', KEYS[1])
local tat = now
if stored then
  local value = tonumber(stored)
  if value and value > now then tat = value end
end
local next_tat = tat + interval * cost
local allow_at = next_tat - interval * burst
if allow_at > now then
  return { 0, allow_at - now, 0 }
end
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000))
return { 1, 0, math.floor((now - allow_at) / interval) }
`;
