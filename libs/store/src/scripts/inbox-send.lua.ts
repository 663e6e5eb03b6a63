/**
 * Lua that appends one message to an inbox, shared by inbox-send and cas-request so that both
 * keep the stream and its id hash in step. Defines `append_inbox(stream, ids, messageId, json)`,
 * which returns the message's stream entry id and whether it was appended now: a message id the
 * inbox still holds is not appended twice (a retried send), its first entry id is returned.
 */
export const APPEND_INBOX_LUA = `
local function append_inbox(stream, ids, messageId, json)
  local existing = redis.call('HGET', ids, messageId)
  if existing then
    return existing, false
  end
  local entryId = redis.call('XADD', stream, '*', 'id', messageId, 'message', json)
  redis.call('HSET', ids, messageId, entryId)
  return entryId, true
end
`;

/** Source of the inbox-send script; see its header. */
export const INBOX_SEND_LUA = `--[[
  inbox-send (3 keys): appends a message to an agent's inbox, once per message id — also when
  the same message is sent again after the recipient acknowledged it (within the dedup window).

  KEYS[1]  inbox stream  <prefix>:inbox:{<agentId>}   entry fields: id, message (JSON)
  KEYS[2]  inbox ids     <prefix>:inbox:{<agentId>}:ids   message id -> entry id
  KEYS[3]  sent record   <prefix>:inbox:{<agentId>}:sent:<messageId>   hash: entry, message (JSON)

  ARGV[1]  message id
  ARGV[2]  message JSON (validated by the caller)
  ARGV[3]  dedup window (ms): how long the sent record is kept

  Returns
    { 'appended', entry id }                     the message is in the inbox now
    { 'existing', entry id, stored JSON }        this message id was sent before (still in the
                                                 inbox, or already acknowledged); nothing changed
    { 'corrupt', entry id }                      the id hash names an entry the stream lost

  Nothing in the inbox expires: a message stays until inbox-ack removes it. The sent record
  expires after the dedup window, whether or not the message was acknowledged.
]]
${APPEND_INBOX_LUA}
local sent = redis.call('HMGET', KEYS[3], 'entry', 'message')
if sent[1] and sent[2] then
  return { 'existing', sent[1], sent[2] }
end
local entryId, appended = append_inbox(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
local json = ARGV[2]
if not appended then
  local stored = redis.call('XRANGE', KEYS[1], entryId, entryId)
  if #stored == 0 then
    return { 'corrupt', entryId }
  end
  json = nil
  local fields = stored[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'message' then json = fields[i + 1] end
  end
  if not json then
    return { 'corrupt', entryId }
  end
end
redis.call('HSET', KEYS[3], 'entry', entryId, 'message', json)
redis.call('PEXPIRE', KEYS[3], ARGV[3])
if appended then
  return { 'appended', entryId }
end
return { 'existing', entryId, json }
`;
