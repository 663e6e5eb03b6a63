/**
 * presence-connect, one step (a single Redis) and split (Redis Cluster, presence-store.ts): both
 * are built from the same fragment, the part that decides on the agent's own entry; the split
 * variant leaves the index ZADD to the caller (docs/deploy.md §8).
 */

/**
 * The deciding part, on KEYS[1] only: returns 0 from the script when the stored connection is
 * newer, otherwise writes the entry and falls through.
 */
const CONNECT_ENTRY = `local stored = tonumber(redis.call('HGET', KEYS[1], 'connected_at_ms'))
if stored and stored > tonumber(ARGV[5]) then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'entry', ARGV[2], 'session_id', ARGV[3], 'gateway_id', ARGV[4],
  'connected_at_ms', ARGV[5], 'last_activity_at', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
`;

const ARGS = `  ARGV[1]  agent id
  ARGV[2]  presence entry JSON (validated by the caller)
  ARGV[3]  session id
  ARGV[4]  gateway id
  ARGV[5]  connected_at (epoch ms)
  ARGV[6]  last_activity_at (ISO 8601)
  ARGV[7]  TTL (ms)
  ARGV[8]  expiry (epoch ms of the caller's clock): the index score

  Returns 1 when the entry was written, 0 when the stored entry's connection is newer
  (connected_at greater than ARGV[5]) and stays. An equal connected_at is replaced: the later
  call wins.`;

/** Source of the presence-connect script; see its header. */
export const PRESENCE_CONNECT_LUA = `--[[
  presence-connect (2 keys): the newest connection of an agent wins.

  KEYS[1]  agent presence hash  <prefix>:presence:agent:{<agentId>}
  KEYS[2]  presence index zset  <prefix>:presence:agents (member agent id, score expiry)

${ARGS}
]]
${CONNECT_ENTRY}redis.call('ZADD', KEYS[2], ARGV[8], ARGV[1])
return 1
`;

/** Source of presence-connect-core: presence-connect for Redis Cluster, on the agent's tag only; the caller adds the index entry when it answers 1. */
export const PRESENCE_CONNECT_CORE_LUA = `--[[
  presence-connect-core (1 key): presence-connect without the index; the caller ZADDs the index
  when this answers 1 (a crash in between leaves an entry the index lists again at its next touch).

  KEYS[1]  agent presence hash  <prefix>:presence:agent:{<agentId>}

${ARGS}
]]
${CONNECT_ENTRY}return 1
`;
