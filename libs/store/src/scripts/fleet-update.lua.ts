/**
 * fleet-update, one step (a single Redis) and split (Redis Cluster, fleet-store.ts), built from one
 * fragment: the merge into the agent's own row. The split variant leaves the index ZADD to the
 * caller (docs/deploy.md §8).
 */

/** The merge into KEYS[1] (the row), with its expiry. */
const MERGE_ROW = `local mode = ARGV[3]
local owns = redis.call('HGET', KEYS[1], 'gateway_id') == ARGV[2]
-- One variadic HSET for everything this call sets: a busy agent costs the same few commands per
-- flush whatever it reported.
local set = {}
for i = 6, #ARGV, 2 do
  if not (mode == 'activity' and ARGV[i] == 'hooks_in_flight' and not owns) then
    set[#set + 1] = ARGV[i]
    set[#set + 1] = ARGV[i + 1]
  end
end
if mode == 'connect' then
  set[#set + 1] = 'gateway_id'
  set[#set + 1] = ARGV[2]
  set[#set + 1] = 'connected'
  set[#set + 1] = '1'
elseif mode == 'disconnect' and owns then
  set[#set + 1] = 'connected'
  set[#set + 1] = '0'
  set[#set + 1] = 'hooks_in_flight'
  set[#set + 1] = '0'
  redis.call('HDEL', KEYS[1], 'gateway_id', 'session_id', 'connected_at')
end
if #set > 0 then
  redis.call('HSET', KEYS[1], unpack(set))
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
`;

const ARGS = `  ARGV[1]  agent id
  ARGV[2]  gateway id: the gateway reporting
  ARGV[3]  mode: connect | activity | disconnect
  ARGV[4]  last seen (epoch ms): the index score
  ARGV[5]  retention (ms): the row expires this long after the agent was last seen
  ARGV[6…] field, value pairs to set

  connect    sets the pairs and makes this gateway the row's owner.
  activity   sets the pairs, except hooks_in_flight unless this gateway owns the row: a gateway
             still finishing a hook of an agent that moved elsewhere must not overwrite the
             count the new gateway reports.
  disconnect marks the row offline only while this gateway owns it, so the late close of an old
             connection cannot mark an agent offline that already reconnected to another gateway.
             The pairs (last_seen_at) are set either way.

  Returns the row after the update as HGETALL pairs.`;

/** Source of the fleet-update script; see its header. */
export const FLEET_UPDATE_LUA = `--[[
  fleet-update (2 keys): merges what one gateway saw of an agent into its fleet row.

  KEYS[1]  fleet row hash     <prefix>:fleet:agent:{<agentId>}
  KEYS[2]  fleet index zset   <prefix>:fleet:agents (score = last seen, epoch ms)

${ARGS}
]]
${MERGE_ROW}redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return redis.call('HGETALL', KEYS[1])
`;

/** Source of fleet-update-core: fleet-update for Redis Cluster, on the row's tag only; the caller then ZADDs the index. */
export const FLEET_UPDATE_CORE_LUA = `--[[
  fleet-update-core (1 key): fleet-update without the index; the caller ZADDs the index after it
  (a crash in between leaves a row the index lists again at the agent's next update).

  KEYS[1]  fleet row hash     <prefix>:fleet:agent:{<agentId>}

${ARGS}
]]
${MERGE_ROW}return redis.call('HGETALL', KEYS[1])
`;
