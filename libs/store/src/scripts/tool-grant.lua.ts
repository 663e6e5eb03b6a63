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
local existing = redis.call('HMGET', KEYS[1], 'grant', 'expires_ms')
if existing[1] then
  return { 'exists', existing[1], existing[2] or '0' }
end
redis.call('HSET', KEYS[1], 'grant', ARGV[2], 'expires_ms', ARGV[3], 'ttl_ms', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[1])
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
local fields = redis.call('HMGET', KEYS[1], 'grant', 'expires_ms', 'ttl_ms')
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
extend(KEYS[2], expires, now)
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
local current = redis.call('HGET', KEYS[1], 'grant')
if not current then
  return 'missing'
end
if current ~= ARGV[1] then
  return 'stale'
end
redis.call('HSET', KEYS[1], 'grant', ARGV[2])
if redis.call('HEXISTS', KEYS[2], 'state') == 1 then
  redis.call('HSET', KEYS[2], 'grant_revoked', ARGV[3])
end
return { 'ok', tonumber(redis.call('HGET', KEYS[1], 'uses') or '0') }
`;
