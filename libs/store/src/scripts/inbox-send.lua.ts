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
  inbox-send (2 keys): appends a message to an agent's inbox, once per message id.

  KEYS[1]  inbox stream  <prefix>:inbox:{<agentId>}   entry fields: id, message (JSON)
  KEYS[2]  inbox ids     <prefix>:inbox:{<agentId>}:ids   message id -> entry id

  ARGV[1]  message id
  ARGV[2]  message JSON (validated by the caller)

  Returns
    { 'appended', entry id }                     the message is in the inbox now
    { 'existing', entry id, stored JSON }        the inbox already holds this message id
                                                 (unacknowledged); nothing changed
    { 'corrupt', entry id }                      the id hash names an entry the stream lost

  Nothing expires: a message stays until inbox-ack removes it.
]]
${APPEND_INBOX_LUA}
local entryId, appended = append_inbox(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
if appended then
  return { 'appended', entryId }
end
local stored = redis.call('XRANGE', KEYS[1], entryId, entryId)
if #stored == 0 then
  return { 'corrupt', entryId }
end
local fields = stored[1][2]
for i = 1, #fields, 2 do
  if fields[i] == 'message' then
    return { 'existing', entryId, fields[i + 1] }
  end
end
return { 'corrupt', entryId }
`;
