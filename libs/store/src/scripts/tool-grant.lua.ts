/**
 * Sources of the session-grant scripts: create (once per request), extend on use, revoke.
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

/** Source of the grant-touch script; see its header. */
export const GRANT_TOUCH_LUA = `--[[
  grant-touch (3 keys): a grant was used; it lives its TTL again from now (like the session it
  belongs to, which lives its TTL after its last use). Never shortens it.

  KEYS[1]  grant hash        <prefix>:grant:{<grantId>}
  KEYS[2]  session's grants  <prefix>:grants:session:{<sessionId>}
  KEYS[3]  grant index       <prefix>:grants:all
  ARGV[1]  grant id
  ARGV[2]  now (epoch ms)

  Returns the expiry (epoch ms) as a string, or '' when the grant no longer exists.
]]
${EXTEND}
local fields = redis.call('HMGET', KEYS[1], 'expires_ms', 'ttl_ms')
if not fields[1] or not fields[2] then
  return ''
end
local now = tonumber(ARGV[2])
local expires = math.max(tonumber(fields[1]), now + tonumber(fields[2]))
redis.call('HSET', KEYS[1], 'expires_ms', expires)
redis.call('PEXPIREAT', KEYS[1], expires)
extend(KEYS[2], expires, now)
redis.call('ZADD', KEYS[3], expires, ARGV[1])
return tostring(expires)
`;

/** Source of the grant-revoke script; see its header. */
export const GRANT_REVOKE_LUA = `--[[
  grant-revoke (1 key): replaces a grant's JSON with its revoked form if it is still the one the
  caller read (compare-and-set; the caller re-reads on 'stale').

  KEYS[1]  grant hash  <prefix>:grant:{<grantId>}
  ARGV[1]  the grant JSON read
  ARGV[2]  the revoked grant JSON

  Returns 'ok', 'stale' (the JSON changed meanwhile) or 'missing' (expired or never existed).
]]
local current = redis.call('HGET', KEYS[1], 'grant')
if not current then
  return 'missing'
end
if current ~= ARGV[1] then
  return 'stale'
end
redis.call('HSET', KEYS[1], 'grant', ARGV[2])
return 'ok'
`;
