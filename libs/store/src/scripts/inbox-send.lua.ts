/**
 * Lua that appends to and removes from an inbox, shared by inbox-send, inbox-ack, inbox-set-aside and cas-request so
 * that all keep the stream, its id hash and the inbox's byte count in step.
 *
 * `append_inbox(stream, ids, messageId, json)` returns the message's stream entry id and whether it
 * was appended now: a message id the inbox still holds is not appended twice (a retried send), its
 * first entry id is returned. `remove_inbox(stream, ids, messageId)` removes it, returning 1 when
 * it was there. The id hash holds, beside `message id → entry id`, `<message id>#bytes` (the
 * message's JSON size) and `#bytes` (the inbox's total): `#` cannot occur in a message id.
 */
export const APPEND_INBOX_LUA = `
local function append_inbox(stream, ids, messageId, json)
  local existing = redis.call('HGET', ids, messageId)
  if existing then
    return existing, false
  end
  local entryId = redis.call('XADD', stream, '*', 'id', messageId, 'message', json)
  redis.call('HSET', ids, messageId, entryId, messageId .. '#bytes', #json)
  redis.call('HINCRBY', ids, '#bytes', #json)
  return entryId, true
end

local function remove_inbox(stream, ids, messageId)
  local entryId = redis.call('HGET', ids, messageId)
  if not entryId then
    return 0
  end
  local removed = redis.call('XDEL', stream, entryId)
  local size = tonumber(redis.call('HGET', ids, messageId .. '#bytes') or '0') or 0
  redis.call('HDEL', ids, messageId, messageId .. '#bytes')
  if size > 0 then
    redis.call('HINCRBY', ids, '#bytes', -size)
  end
  return removed
end
`;

/** Source of the inbox-send script; see its header. */
export const INBOX_SEND_LUA = `--[[
  inbox-send (3 keys): appends a message to an agent's inbox, once per message id — also when
  the same message is sent again after the recipient acknowledged it (within the dedup window) —
  unless the inbox is full.

  KEYS[1]  inbox stream  <prefix>:inbox:{<agentId>}   entry fields: id, message (JSON)
  KEYS[2]  inbox ids     <prefix>:inbox:{<agentId>}:ids   message id -> entry id, sizes (see append_inbox)
  KEYS[3]  sent record   <prefix>:inbox:{<agentId>}:sent:<messageId>   hash: entry, digest, head

  ARGV[1]  message id
  ARGV[2]  message JSON (validated by the caller)
  ARGV[3]  dedup window (ms): how long the sent record is kept
  ARGV[4]  digest of what the message says (sender, recipient, type, content, metadata; not its
           time): the sent record keeps it, not a second copy of the message
  ARGV[5]  head: the message's JSON without its content and free metadata (small)
  ARGV[6]  most messages the inbox may hold ('0' or absent: no limit)
  ARGV[7]  most bytes of message JSON the inbox may hold ('0' or absent: no limit)

  Returns
    { 'appended', entry id }                     the message is in the inbox now
    { 'existing', entry id, '', head, '1' }      this message id was sent before saying the same
                                                 (same digest); the head is the first one's
    { 'existing', entry id, stored JSON }        sent before, differently, and still in the inbox
    { 'existing', entry id, '', head }           sent before, differently, and acknowledged since:
                                                 only its head is kept
    { 'full', 'messages' | 'bytes', limit }      the inbox is full; nothing changed
    { 'corrupt', entry id }                      the id hash names an entry the stream lost

  Nothing in the inbox expires: a message stays until inbox-ack removes it. The sent record
  expires after the dedup window, whether or not the message was acknowledged.
]]
${APPEND_INBOX_LUA}
local function stored_json(entryId)
  local stored = redis.call('XRANGE', KEYS[1], entryId, entryId)
  if #stored == 0 then
    return nil
  end
  local fields = stored[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'message' then return fields[i + 1] end
  end
  return nil
end

local sent = redis.call('HMGET', KEYS[3], 'entry', 'digest', 'head', 'message')
if sent[1] then
  if sent[4] then
    return { 'existing', sent[1], sent[4] }
  end
  if sent[2] == ARGV[4] then
    return { 'existing', sent[1], '', sent[3] or '', '1' }
  end
  local json = stored_json(sent[1])
  if json then
    return { 'existing', sent[1], json }
  end
  return { 'existing', sent[1], '', sent[3] or '' }
end
local held = redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1
if not held then
  local maxMessages, maxBytes = tonumber(ARGV[6] or '0') or 0, tonumber(ARGV[7] or '0') or 0
  if maxMessages > 0 and redis.call('XLEN', KEYS[1]) >= maxMessages then
    return { 'full', 'messages', tostring(maxMessages) }
  end
  if maxBytes > 0 and (tonumber(redis.call('HGET', KEYS[2], '#bytes') or '0') or 0) + #ARGV[2] > maxBytes then
    return { 'full', 'bytes', tostring(maxBytes) }
  end
end
local entryId, appended = append_inbox(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
local json = nil
if not appended then
  json = stored_json(entryId)
  if not json then
    return { 'corrupt', entryId }
  end
end
redis.call('HSET', KEYS[3], 'entry', entryId, 'digest', ARGV[4], 'head', ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
if appended then
  return { 'appended', entryId }
end
return { 'existing', entryId, json }
`;
