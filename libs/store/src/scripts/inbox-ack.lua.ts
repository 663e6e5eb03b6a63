import { APPEND_INBOX_LUA } from './inbox-send.lua.js';

/** Source of the inbox-ack script; see its header. */
export const INBOX_ACK_LUA = `--[[
  inbox-ack (2 keys): removes acknowledged messages from an agent's inbox.

  KEYS[1]  inbox stream  <prefix>:inbox:{<agentId>}
  KEYS[2]  inbox ids     <prefix>:inbox:{<agentId>}:ids

  ARGV[1..n]  message ids

  Returns the number of messages removed now. Ids the inbox does not hold (never sent, or
  already acknowledged) are skipped, so acknowledging twice removes nothing the second time.
  The inbox's byte count goes down by each removed message's size (remove_inbox).
]]
${APPEND_INBOX_LUA}
local removed = 0
for i = 1, #ARGV do
  removed = removed + remove_inbox(KEYS[1], KEYS[2], ARGV[i])
end
return removed
`;
