/** Number of fixed KEYS of purge-request, before the index keys. */
export const PURGE_REQUEST_FIXED_KEYS = 3;

/** Source of the purge-request script; see its header. */
export const PURGE_REQUEST_LUA = `--[[
  purge-request (3 + n keys): removes a settled request whose retention has passed from its
  indexes, and its data if Redis has not expired it yet.

  KEYS[1]  request hash     <prefix>:request:{<id>}
  KEYS[2]  history list     <prefix>:request:{<id>}:history
  KEYS[3]  retention zset   <prefix>:requests:retention
  KEYS[4 .. 3+n]  the indexes the request was in (from the retention member)

  ARGV[1]  request id
  ARGV[2]  incarnation of the request being purged
  ARGV[3]  the retention member itself

  Returns 'purged', or 'reused' when a newer request with the same id exists: its hash and its
  index entries are left alone (a stale entry of the old request in an index the new one is not
  in is skipped by list, which checks every filter against the state it loads).
  Either way the retention member is removed.
]]
local incarnation = redis.call('HGET', KEYS[1], 'incarnation')
redis.call('ZREM', KEYS[3], ARGV[3])
if incarnation and incarnation ~= ARGV[2] then
  return 'reused'
end
redis.call('DEL', KEYS[1], KEYS[2])
for i = ${PURGE_REQUEST_FIXED_KEYS} + 1, #KEYS do
  redis.call('ZREM', KEYS[i], ARGV[1])
end
return 'purged'
`;
