/** Source of the publish-config script; see its header. */
export const PUBLISH_CONFIG_LUA = `--[[
  publish-config (2 keys): makes a new hooks configuration version current, unless its text is
  the current version's text.

  KEYS[1]  meta hash      <prefix>:config:{hooks}:meta      seq, current, digest
  KEYS[2]  versions hash  <prefix>:config:{hooks}:versions  field = version number, value = JSON

  ARGV[1]  SHA-256 of the text (hex)
  ARGV[2]  the version's JSON without its number (validated by the caller)
  ARGV[3]  pub/sub channel to announce the new version on

  Returns
    { 'unchanged', current version }   the digest is the current one's; nothing changed
    { 'published', new version }       stored, made current, announced

  The number is seq + 1, taken in this script, so versions are 1, 2, 3… without gaps whatever
  the number of concurrent publishers. PUBLISH comes after the writes: a subscriber that hears
  the number can read the version. Pub/sub is best-effort; watchers also re-read 'current'.
]]
local m = redis.call('HMGET', KEYS[1], 'current', 'digest')
if m[1] and m[2] == ARGV[1] then
  return { 'unchanged', m[1] }
end
local version = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[2], tostring(version), ARGV[2])
redis.call('HSET', KEYS[1], 'current', tostring(version), 'digest', ARGV[1])
redis.call('PUBLISH', ARGV[3], tostring(version))
return { 'published', tostring(version) }
`;
