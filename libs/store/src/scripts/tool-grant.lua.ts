/**
 * Sources of the session-grant scripts: create (once per request), use (checked and counted), revoke.
 */

/** Lua shared by create and touch: keep `key` at least until `expiresMs` (epoch ms), never shorter. */
const EXTEND = `
local function extend(key, expiresMs, nowMs)
  local wanted = expiresMs - nowMs
  if wanted <= 0 then
    return
  end
  local ttl = redis.call('PTTL', key)
  if ttl < wanted then
    redis.call('PEXPIRE', key, wanted)
  end
end
`;

/**
 * The grant part of grant-create, on KEYS[1] only: returns 'exists' from the script for a grant
 * already recorded, else records it. Shared by grant-create and grant-create-core (Redis Cluster).
 */
const CREATE_RECORD = `local existing = redis.call('HMGET', KEYS[1], 'grant', 'expires_ms')
if existing[1] then
  return { 'exists', existing[1], existing[2] or '0' }
end
redis.call('HSET', KEYS[1], 'grant', ARGV[2], 'expires_ms', ARGV[3], 'ttl_ms', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
`;

/**
 * The grant part of grant-use, on KEYS[1] only: returns 'gone' / 'revoked' from the script, else
 * counts the use and extends the grant, leaving the locals expires and uses. Shared by grant-use
 * and grant-use-core.
 */
const USE_RECORD = `local fields = redis.call('HMGET', KEYS[1], 'grant', 'expires_ms', 'ttl_ms')
if not fields[1] or not fields[2] or not fields[3] then
  return { 'gone' }
end
local ok, grant = pcall(cjson.decode, fields[1])
if not ok or type(grant) ~= 'table' or grant['revoked_at'] ~= nil then
  return { 'revoked' }
end
local now = tonumber(ARGV[2])
if tonumber(fields[2]) <= now then
  return { 'gone' }
end
local uses = redis.call('HINCRBY', KEYS[1], 'uses', 1)
local expires = math.max(tonumber(fields[2]), now + tonumber(fields[3]))
redis.call('HSET', KEYS[1], 'expires_ms', expires)
redis.call('PEXPIREAT', KEYS[1], expires)
`;

/** The revocation's compare-and-set on KEYS[1] (the grant): returns 'missing' / 'stale' from the script, else writes the revoked JSON. */
const REVOKE_RECORD = `local current = redis.call('HGET', KEYS[1], 'grant')
if not current then
  return 'missing'
end
if current ~= ARGV[1] then
  return 'stale'
end
redis.call('HSET', KEYS[1], 'grant', ARGV[2])
`;

/** Defines mark_request(key, grantId): marks the approval request a revoked grant came from, while it exists. */
const MARK_REQUEST = `
local function mark_request(key, grantId)
  if redis.call('HEXISTS', key, 'state') == 1 then
    redis.call('HSET', key, 'grant_revoked', grantId)
  end
end
`;

/** Source of the grant-create script; see its header. */
export const GRANT_CREATE_LUA = `--[[
  grant-create (3 keys): records a session grant, once. A grant id is derived from the request
  that granted it, so deciding the same request again returns the grant recorded the first time.

  KEYS[1]  grant hash        <prefix>:grant:{<grantId>}  fields grant (JSON), expires_ms, ttl_ms
  KEYS[2]  session's grants  <prefix>:grants:session:{<sessionId>}  set of grant ids
  KEYS[3]  grant index       <prefix>:grants:all  zset grant id → expiry (epoch ms)
  ARGV[1]  grant id
  ARGV[2]  grant JSON (validated by the caller; without expires_at)
  ARGV[3]  expiry (epoch ms)
  ARGV[4]  TTL (ms): how long the grant lives after each use
  ARGV[5]  now (epoch ms)

  Returns
    { 'created' }
    { 'exists', grant JSON, expires_ms }  a grant with this id exists; nothing changed
]]
${EXTEND}
${CREATE_RECORD}redis.call('SADD', KEYS[2], ARGV[1])
extend(KEYS[2], tonumber(ARGV[3]), tonumber(ARGV[5]))
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return { 'created' }
`;

/** Source of the grant-use script; see its header. */
export const GRANT_USE_LUA = `--[[
  grant-use (3 keys): a call is about to be allowed by a grant. Checks, in the same script that
  counts the use, that the grant is neither revoked nor expired, so a revocation that returned
  before this script ran always wins; then counts the use and lets the grant live its TTL again
  from now (like the session it belongs to). Never shortens it.

  KEYS[1]  grant hash        <prefix>:grant:{<grantId>}  fields grant (JSON), expires_ms, ttl_ms, uses
  KEYS[2]  session's grants  <prefix>:grants:session:{<sessionId>}
  KEYS[3]  grant index       <prefix>:grants:all
  ARGV[1]  grant id
  ARGV[2]  now (epoch ms)

  Returns
    { 'used', <expiry ms>, <use number> }  the call may go; this is the grant's n-th use
    { 'revoked' }   the grant was revoked; nothing changed
    { 'gone' }      the grant no longer exists or is past its expiry; nothing changed
]]
${EXTEND}
${USE_RECORD}extend(KEYS[2], expires, now)
redis.call('ZADD', KEYS[3], expires, ARGV[1])
return { 'used', tostring(expires), uses }
`;

/** Source of the grant-revoke script; see its header. */
export const GRANT_REVOKE_LUA = `--[[
  grant-revoke (2 keys): replaces a grant's JSON with its revoked form if it is still the one the
  caller read (compare-and-set; the caller re-reads on 'stale'), and marks the approval request
  the grant came from so that it is never consumed again (consume-tool-approval checks the mark).
  Both happen before the caller answers the operator, so the very next hook sees the revocation
  whichever path it takes (the grant, or the request). The request is marked only while it
  exists (a purged request cannot be consumed anyway).

  KEYS[1]  grant hash    <prefix>:grant:{<grantId>}
  KEYS[2]  request hash  <prefix>:request:{<requestId>}  field grant_revoked (set here)
  ARGV[1]  the grant JSON read
  ARGV[2]  the revoked grant JSON
  ARGV[3]  grant id

  Returns { 'ok', <uses> } (the grant's final use count: grant-use refuses from now on),
  'stale' (the JSON changed meanwhile) or 'missing' (expired or never existed).
]]
${MARK_REQUEST}
${REVOKE_RECORD}mark_request(KEYS[2], ARGV[3])
return { 'ok', tonumber(redis.call('HGET', KEYS[1], 'uses') or '0') }
`;

/** Source of grant-create-core: grant-create for Redis Cluster, on the grant's tag; the caller then runs grant-session-add and adds the index entry. */
export const GRANT_CREATE_CORE_LUA = `--[[
  grant-create-core (1 key): the grant part of grant-create. The session's set and the grant index
  follow (grant-session-add, ZADD), on 'created' and on 'exists' alike, so a create repeated after
  a crash repairs them.

  KEYS[1]  grant hash  <prefix>:grant:{<grantId>}
  ARGV[1..5]  as grant-create

  Returns what grant-create returns.
]]
${CREATE_RECORD}return { 'created' }
`;

/** Source of grant-use-core: grant-use for Redis Cluster, on the grant's tag; the caller then extends the session's set and the index entry. */
export const GRANT_USE_CORE_LUA = `--[[
  grant-use-core (1 key): the grant part of grant-use (the check against a revocation and the count
  stay atomic with the revocation's compare-and-set, both on the grant's tag).

  KEYS[1]  grant hash  <prefix>:grant:{<grantId>}
  ARGV[1..2]  as grant-use

  Returns what grant-use returns.
]]
${USE_RECORD}return { 'used', tostring(expires), uses }
`;

/** Source of grant-session-add: a grant's entry in its session's set, kept at least as long as the grant. */
export const GRANT_SESSION_ADD_LUA = `--[[
  grant-session-add (1 key): grant-create's and grant-use's step on the session's set under Redis
  Cluster. Idempotent: adding a member again and extending never shorten anything.

  KEYS[1]  session's grants  <prefix>:grants:session:{<sessionId>}
  ARGV[1]  grant id
  ARGV[2]  the grant's expiry (epoch ms)
  ARGV[3]  now (epoch ms)
]]
${EXTEND}
redis.call('SADD', KEYS[1], ARGV[1])
extend(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
return 1
`;

/** Source of grant-revoke-mark: grant-revoke's mark on the request, the first of its two calls under Redis Cluster. */
export const GRANT_REVOKE_MARK_LUA = `--[[
  grant-revoke-mark (1 key): marks the request a grant came from as revoked, while it exists.
  Under Redis Cluster it runs before grant-revoke-core, so that once the operator is answered
  both paths to the call (the grant, the request) refuse; a mark left by a revocation that then
  failed only ever refuses more.

  KEYS[1]  request hash  <prefix>:request:{<requestId>}
  ARGV[1]  grant id
]]
${MARK_REQUEST}
mark_request(KEYS[1], ARGV[1])
return 1
`;

/** Source of grant-revoke-core: grant-revoke's compare-and-set on the grant's tag (Redis Cluster). */
export const GRANT_REVOKE_CORE_LUA = `--[[
  grant-revoke-core (1 key): the compare-and-set of grant-revoke, without the request's mark
  (grant-revoke-mark, made just before).

  KEYS[1]  grant hash  <prefix>:grant:{<grantId>}
  ARGV[1..3]  as grant-revoke

  Returns what grant-revoke returns.
]]
${REVOKE_RECORD}return { 'ok', tonumber(redis.call('HGET', KEYS[1], 'uses') or '0') }
`;
