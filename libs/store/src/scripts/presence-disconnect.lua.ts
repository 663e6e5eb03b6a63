/**
 * presence-disconnect, one step (a single Redis) and split (Redis Cluster, presence-store.ts),
 * built from one fragment: the compare-and-delete on the agent's own entry.
 */

/** The deciding part, on KEYS[1] only: returns 0 from the script unless the entry is the closing connection's, then deletes it. */
const DISCONNECT_ENTRY = `local current = redis.call('HMGET', KEYS[1], 'session_id', 'gateway_id')
if current[1] ~= ARGV[2] then
  return 0
end
if ARGV[3] ~= '' and current[2] ~= ARGV[3] then
  return 0
end
redis.call('DEL', KEYS[1])
`;

const ARGS = `  ARGV[1]  agent id
  ARGV[2]  session id of the closing connection
  ARGV[3]  gateway id of the closing connection, or '' to match any gateway

  Returns 1 when the entry was removed, 0 when it belongs to another session or gateway (a newer
  connection, possibly a resumed session on another gateway) or is already gone.`;

/** Source of the presence-disconnect script; see its header. */
export const PRESENCE_DISCONNECT_LUA = `--[[
  presence-disconnect (2 keys): compare-and-delete of an agent's entry.

  KEYS[1]  agent presence hash  <prefix>:presence:agent:{<agentId>}
  KEYS[2]  presence index zset  <prefix>:presence:agents

${ARGS}
]]
${DISCONNECT_ENTRY}redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

/** Source of presence-disconnect-core: presence-disconnect for Redis Cluster; the caller removes the index member when it answers 1. */
export const PRESENCE_DISCONNECT_CORE_LUA = `--[[
  presence-disconnect-core (1 key): presence-disconnect without the index; the caller ZREMs the
  index member when this answers 1 (a crash in between leaves an index member whose entry is
  gone, which list skips and prunes).

  KEYS[1]  agent presence hash  <prefix>:presence:agent:{<agentId>}

${ARGS}
]]
${DISCONNECT_ENTRY}return 1
`;
