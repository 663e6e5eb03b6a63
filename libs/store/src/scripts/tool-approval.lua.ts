/**
 * Sources of the scripts behind tool approvals that rules open: using a settled approval exactly
 * once, and the per-session index that finds an approval again by the call it was asked for.
 */

/** Source of the consume-tool-approval script; see its header. */
export const CONSUME_TOOL_APPROVAL_LUA = `--[[
  consume-tool-approval (1 key): marks a settled request as used by one hook, once. The first
  hook to ask wins; the same hook asking again (a retried job) gets the same answer. A request
  whose session grant was revoked is never used again, by any hook: the revocation is checked
  here, in the same script that hands the request out.

  KEYS[1]  request hash  <prefix>:request:{<requestId>}  fields state (ProtocolState JSON), …,
                                                         consumed_by (set here),
                                                         grant_revoked (set by grant-revoke)
  ARGV[1]  hook id

  Returns
    { 'consumed', <hook id that holds it> }  ARGV[1] when this hook holds it (first or again)
    { 'revoked', <grant id> }  the grant recorded from this approval was revoked; nothing changed
    { 'pending' }   the request is not settled yet; nothing changed
    { 'missing' }   there is no such request (never opened, or purged after retention)
]]
local fields = redis.call('HMGET', KEYS[1], 'state', 'grant_revoked')
local state = fields[1]
if not state then
  return { 'missing' }
end
if fields[2] then
  return { 'revoked', fields[2] }
end
local ok, decoded = pcall(cjson.decode, state)
if not ok or type(decoded) ~= 'table' or decoded['status'] == nil or decoded['status'] == 'pending' then
  return { 'pending' }
end
redis.call('HSETNX', KEYS[1], 'consumed_by', ARGV[1])
return { 'consumed', redis.call('HGET', KEYS[1], 'consumed_by') }
`;

/** Source of the index-tool-approval script; see its header. */
export const INDEX_TOOL_APPROVAL_LUA = `--[[
  index-tool-approval (1 key): remembers the latest tool approval a rule opened for one call of a
  session, so a retried identical call (a Claude Code retry, an SDK re-send without
  context.approval) finds it.

  KEYS[1]  index hash  <prefix>:tool-approvals:{<sessionId>}:calls  field = call digest, value = request id
  ARGV[1]  call digest (SHA-256 of agent, tool and input digest)
  ARGV[2]  request id
  ARGV[3]  TTL (ms) the index keeps at least from now

  Returns 'ok'. The TTL only ever grows, so a short deadline never cuts a longer one short.
]]
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < tonumber(ARGV[3]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 'ok'
`;
