import { APPEND_INBOX_LUA } from './inbox-send.lua.js';

/** Source of the inbox-set-aside script; see its header. */
export const INBOX_SET_ASIDE_LUA = `--[[
  inbox-set-aside (3 keys): moves one inbox entry that does not parse out of the delivery path,
  into the inbox's unreadable stream, where an operator can inspect it.

  KEYS[1]  inbox stream       <prefix>:inbox:{<agentId>}
  KEYS[2]  inbox ids          <prefix>:inbox:{<agentId>}:ids
  KEYS[3]  unreadable stream  <prefix>:inbox:{<agentId>}:unreadable   (same tag)

  ARGV[1]  the entry id
  ARGV[2]  why it does not parse (short, no content)
  ARGV[3]  about how many entries the unreadable stream keeps (XADD MAXLEN ~)
  ARGV[4]  TTL (ms) of the unreadable stream after its last entry

  Returns 1 when the entry was moved now, 0 when the inbox no longer holds it (acknowledged, or
  set aside by another gateway's read meanwhile). The entry's stored fields are kept as
  \`stored:<name>\`. When the id hash maps the entry's message id to this entry, the mapping and
  its bytes go as an acknowledgement removes them (remove_inbox), so the entry stops counting
  against the inbox's limits; an entry the hash does not map is only deleted.
]]
${APPEND_INBOX_LUA}
local found = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #found == 0 then
  return 0
end
local fields = found[1][2]
local aside = { 'entry', ARGV[1], 'why', ARGV[2] }
local messageId = nil
for i = 1, #fields, 2 do
  if fields[i] == 'id' then messageId = fields[i + 1] end
  aside[#aside + 1] = 'stored:' .. fields[i]
  aside[#aside + 1] = fields[i + 1]
end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', unpack(aside))
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if messageId and redis.call('HGET', KEYS[2], messageId) == ARGV[1] then
  remove_inbox(KEYS[1], KEYS[2], messageId)
else
  redis.call('XDEL', KEYS[1], ARGV[1])
end
return 1
`;
