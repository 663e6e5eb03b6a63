/**
 * purge-request, one step (a single Redis) and split (Redis Cluster, request-store.ts), built from
 * one fragment: the incarnation check and the delete on the request's own tag.
 */

/** Number of fixed KEYS of purge-request, before the index keys. */
export const PURGE_REQUEST_FIXED_KEYS = 3;

/** On the request's tag (KEYS[1] hash, KEYS[2] history): returns 'reused' from the script for a newer request of the same id, else deletes both. */
const PURGE_DATA = `local incarnation = redis.call('HGET', KEYS[1], 'incarnation')
if incarnation and incarnation ~= ARGV[2] then
  return 'reused'
end
redis.call('DEL', KEYS[1], KEYS[2])
`;

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
redis.call('ZREM', KEYS[3], ARGV[3])
${PURGE_DATA}for i = ${PURGE_REQUEST_FIXED_KEYS} + 1, #KEYS do
  redis.call('ZREM', KEYS[i], ARGV[1])
end
return 'purged'
`;

/** Source of purge-request-core: purge-request for Redis Cluster on the request's tag only. */
export const PURGE_REQUEST_CORE_LUA = `--[[
  purge-request-core (2 keys): the data part of purge-request. The caller then removes the request
  from its indexes (on 'purged') and the retention member (always, last: a crash before leaves the
  member, and the next purge runs again, idempotently).

  KEYS[1]  request hash     <prefix>:request:{<id>}
  KEYS[2]  history list     <prefix>:request:{<id>}:history
  ARGV[1..3]  as purge-request

  Returns 'purged' or 'reused', as purge-request.
]]
${PURGE_DATA}return 'purged'
`;
