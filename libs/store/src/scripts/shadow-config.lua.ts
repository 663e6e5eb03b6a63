/**
 * Scripts of the shadow hooks configuration (shadow-config-store.ts). Every key shares the tag
 * `{hooks}` with the live configuration's keys, so each script, promote included, is one atomic
 * step under Redis Cluster too.
 */

/** Source of the set-shadow script; see its header. */
export const SET_SHADOW_LUA = `--[[
  set-shadow (2 keys): makes a text the shadow configuration, unless it is the shadow already.

  KEYS[1]  shadow meta hash   <prefix>:config:{hooks}:shadow-meta   seq, current, digest
  KEYS[2]  shadows hash       <prefix>:config:{hooks}:shadows       field = shadow number, value = JSON

  ARGV[1]  SHA-256 of the text (hex)
  ARGV[2]  the shadow's JSON without its number (validated by the caller)
  ARGV[3]  pub/sub channel telling workers the shadow changed

  Returns { 'unchanged', n } (the current shadow has this text) or { 'set', n, previous or '' }.
]]
local m = redis.call('HMGET', KEYS[1], 'current', 'digest')
if m[1] and m[2] == ARGV[1] then
  return { 'unchanged', m[1] }
end
local n = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[2], tostring(n), ARGV[2])
redis.call('HSET', KEYS[1], 'current', tostring(n), 'digest', ARGV[1])
redis.call('PUBLISH', ARGV[3], tostring(n))
return { 'set', tostring(n), m[1] or '' }
`;

/** Source of the drop-shadow script; see its header. */
export const DROP_SHADOW_LUA = `--[[
  drop-shadow (1 key): stops shadowing.

  KEYS[1]  shadow meta hash
  ARGV[1]  the shadow the caller means, or '' for whichever is current
  ARGV[2]  pub/sub channel telling workers the shadow changed ('0': none)

  Returns { 'none' } | { 'conflict', current } | { 'dropped', n }
]]
local current = redis.call('HGET', KEYS[1], 'current')
if not current then return { 'none' } end
if ARGV[1] ~= '' and ARGV[1] ~= current then return { 'conflict', current } end
redis.call('HDEL', KEYS[1], 'current', 'digest')
redis.call('PUBLISH', ARGV[2], '0')
return { 'dropped', current }
`;

/** Source of the promote-shadow script; see its header. */
export const PROMOTE_SHADOW_LUA = `--[[
  promote-shadow (4 keys): publishes the current shadow as the next live version and stops
  shadowing it, in one step (the steps of publish-config, then those of drop-shadow).

  KEYS[1]  shadow meta hash
  KEYS[2]  live meta hash       <prefix>:config:{hooks}:meta
  KEYS[3]  live versions hash   <prefix>:config:{hooks}:versions

  ARGV[1]  the shadow number the caller read and built ARGV[3] from
  ARGV[2]  SHA-256 of its text
  ARGV[3]  the live version's JSON without its number
  ARGV[4]  live pub/sub channel
  ARGV[5]  shadow pub/sub channel

  Returns { 'none' } | { 'conflict', current shadow } | { 'unchanged' | 'published', live version }
]]
local current = redis.call('HGET', KEYS[1], 'current')
if not current then return { 'none' } end
if ARGV[1] ~= current then return { 'conflict', current } end
local outcome = 'published'
local version
local m = redis.call('HMGET', KEYS[2], 'current', 'digest')
if m[1] and m[2] == ARGV[2] then
  outcome = 'unchanged'
  version = m[1]
else
  version = tostring(redis.call('HINCRBY', KEYS[2], 'seq', 1))
  redis.call('HSET', KEYS[3], version, ARGV[3])
  redis.call('HSET', KEYS[2], 'current', version, 'digest', ARGV[2])
  redis.call('PUBLISH', ARGV[4], version)
end
redis.call('HDEL', KEYS[1], 'current', 'digest')
redis.call('PUBLISH', ARGV[5], '0')
return { outcome, version }
`;

/** Source of the record-shadow script; see its header. */
export const RECORD_SHADOW_LUA = `--[[
  record-shadow (3 keys): counts one hook evaluated by the shadow beside the live version.

  KEYS[1]  shadow meta hash
  KEYS[2]  stats hash      <prefix>:config:{hooks}:shadow:<n>:stats
  KEYS[3]  examples list   <prefix>:config:{hooks}:shadow:<n>:examples (newest first)

  ARGV[1]  shadow number: nothing is counted unless it is still the current shadow
  ARGV[2]  'ok' | 'error' (the shadow evaluation failed)
  ARGV[3]  transition 'live>shadow' ('' when they agree)
  ARGV[4]  example JSON ('' when they agree)
  ARGV[5]  examples kept
  ARGV[6]  number F of rules that fired in either version, then F rule names, then the rules
           that differ (the rest of ARGV)

  Fields: evaluated, errors, disagreements, t|<from>><to>, r|<rule>|fired, r|<rule>|dis,
  r|<rule>|t|<from>><to>. Returns 1 when counted, 0 when the shadow is no longer current.
]]
if redis.call('HGET', KEYS[1], 'current') ~= ARGV[1] then return 0 end
if ARGV[2] == 'error' then
  redis.call('HINCRBY', KEYS[2], 'errors', 1)
  return 1
end
redis.call('HINCRBY', KEYS[2], 'evaluated', 1)
local fired = tonumber(ARGV[6])
for i = 7, 6 + fired do
  redis.call('HINCRBY', KEYS[2], 'r|' .. ARGV[i] .. '|fired', 1)
end
if ARGV[3] ~= '' then
  redis.call('HINCRBY', KEYS[2], 'disagreements', 1)
  redis.call('HINCRBY', KEYS[2], 't|' .. ARGV[3], 1)
  for i = 7 + fired, #ARGV do
    redis.call('HINCRBY', KEYS[2], 'r|' .. ARGV[i] .. '|dis', 1)
    redis.call('HINCRBY', KEYS[2], 'r|' .. ARGV[i] .. '|t|' .. ARGV[3], 1)
  end
  redis.call('LPUSH', KEYS[3], ARGV[4])
  redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[5]) - 1)
end
return 1
`;

export const RECORD_SHADOW_SKIPPED_LUA = `--[[
  record-shadow-skipped (2 keys): counts hooks a worker did not shadow because every shadow slot
  was busy.

  KEYS[1]  shadow meta hash
  KEYS[2]  stats hash      <prefix>:config:{hooks}:shadow:<n>:stats

  ARGV[1]  shadow number: nothing is counted unless it is still the current shadow
  ARGV[2]  hooks skipped

  Field: skipped_busy. Returns 1 when counted, 0 when the shadow is no longer current.
]]
if redis.call('HGET', KEYS[1], 'current') ~= ARGV[1] then return 0 end
redis.call('HINCRBY', KEYS[2], 'skipped_busy', ARGV[2])
return 1
`;
