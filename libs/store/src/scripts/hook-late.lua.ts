/** Source of the hook-late script; see its header. */
export const HOOK_LATE_LUA = `--[[
  hook-late (1 key): records, once, what a worker did with a hook whose decision it did not make
  because the gateway's failure policy was first (it picked the job up after the deadline, or its
  decision came second), for the hook's drill-down. Written only into a hook record that exists
  (never creates one: it keeps its TTL) and has no worker's summary (a worker decided it).

  KEYS[1]  hook hash <prefix>:hook:{<hookId>}
  ARGV[1]  the report (HookLateEvaluation JSON)

  Returns 1 when recorded now, 0 otherwise.
]]
local h = redis.call('HMGET', KEYS[1], 'status', 'summary')
if not h[1] or h[2] then
  return 0
end
return redis.call('HSETNX', KEYS[1], 'late', ARGV[1])
`;
