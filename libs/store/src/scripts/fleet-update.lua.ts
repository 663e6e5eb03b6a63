/**
 * fleet-update, one step (a single Redis: a batch of rows and the index in one call) and split
 * (Redis Cluster: one call per row on its own tag, then one ZADD of the kept rows to the index),
 * built from one fragment: the merge into one agent's row.
 */

/**
 * Defines merge(key, at): merges the row whose arguments start at ARGV[at] into KEYS' `key`.
 * Returns the row after the merge as HGETALL pairs (empty when the agent has no row: it is
 * deleted, nothing is kept) and where the next row's arguments start.
 *
 * The row is read once, before the write (its owner decides what may be set), and the reply is
 * that read with the merge applied, in the same order HGETALL would give: no read-back after the
 * write. ARGV[1] is the reporting gateway, ARGV[2] the retention.
 */
const MERGE_ROW = `local function merge(key, at)
  local mode = ARGV[at + 1]
  local last = at + 3 + tonumber(ARGV[at + 3])
  local flat = redis.call('HGETALL', key)
  local names, values = {}, {}
  for i = 1, #flat, 2 do
    names[#names + 1] = flat[i]
    values[flat[i]] = flat[i + 1]
  end
  local owns = values['gateway_id'] == ARGV[1]
  -- One variadic HSET for everything this call sets: a busy agent costs the same few commands per
  -- flush whatever it reported.
  local set = {}
  local function put(field, value)
    set[#set + 1] = field
    set[#set + 1] = value
    if values[field] == nil then
      names[#names + 1] = field
    end
    values[field] = value
  end
  for i = at + 4, last, 2 do
    if not (mode == 'activity' and ARGV[i] == 'hooks_in_flight' and not owns) then
      put(ARGV[i], ARGV[i + 1])
    end
  end
  if mode == 'connect' then
    put('gateway_id', ARGV[1])
    put('connected', '1')
  elseif mode == 'disconnect' and owns then
    put('connected', '0')
    put('hooks_in_flight', '0')
  end
  if values['agent'] == nil then
    -- Activity for an agent whose row expired (or was never written): no orphan fields are left.
    if #flat > 0 then
      redis.call('DEL', key)
    end
    return {}, last + 1
  end
  if mode == 'disconnect' and owns then
    redis.call('HDEL', key, 'gateway_id', 'session_id', 'connected_at')
    values['gateway_id'], values['session_id'], values['connected_at'] = nil, nil, nil
  end
  if #set > 0 then
    redis.call('HSET', key, unpack(set))
  end
  redis.call('PEXPIRE', key, ARGV[2])
  local row = {}
  for _, name in ipairs(names) do
    if values[name] ~= nil then
      row[#row + 1] = name
      row[#row + 1] = values[name]
    end
  end
  return row, last + 1
end
`;

const ARGS = `  ARGV[1]  gateway id: the gateway reporting
  ARGV[2]  retention (ms): a row expires this long after its agent was last seen
  then, per row in the order of its key:
    agent id, mode (connect | activity | disconnect), last seen (epoch ms: the index score),
    n (the number of items that follow), then n items: field, value pairs to set

  connect    sets the pairs and makes this gateway the row's owner.
  activity   sets the pairs, except hooks_in_flight unless this gateway owns the row: a gateway
             still finishing a hook of an agent that moved elsewhere must not overwrite the
             count the new gateway reports.
  disconnect marks the row offline only while this gateway owns it, so the late close of an old
             connection cannot mark an agent offline that already reconnected to another gateway.
             The pairs (last_seen_at) are set either way.
  A row without the field 'agent' after the merge (activity or disconnect of an agent whose row
  expired) is deleted instead of written.

  Returns, per row, the row after the update as HGETALL pairs (an empty list for a deleted row).`;

/** Source of the fleet-update script; see its header. */
export const FLEET_UPDATE_LUA = `--[[
  fleet-update (1 + N keys): merges what one gateway saw of N agents into their fleet rows. A
  gateway sends the activity it gathered in its last flush together.

  KEYS[1]    fleet index zset   <prefix>:fleet:agents (score = last seen, epoch ms)
  KEYS[1+i]  fleet row hash     <prefix>:fleet:agent:{<agentId i>}, for i = 1..N

${ARGS}
]]
${MERGE_ROW}local rows, kept, gone = {}, {}, {}
local at = 3
for k = 2, #KEYS do
  local id, score = ARGV[at], ARGV[at + 2]
  local row
  row, at = merge(KEYS[k], at)
  rows[#rows + 1] = row
  if #row > 0 then
    kept[#kept + 1] = score
    kept[#kept + 1] = id
  else
    gone[#gone + 1] = id
  end
end
if #kept > 0 then
  redis.call('ZADD', KEYS[1], unpack(kept))
end
if #gone > 0 then
  redis.call('ZREM', KEYS[1], unpack(gone))
end
return rows
`;

/** Source of fleet-update-core: fleet-update of one row for Redis Cluster; the caller then updates the index. */
export const FLEET_UPDATE_CORE_LUA = `--[[
  fleet-update-core (1 key): fleet-update of one row without the index; the caller ZADDs the
  kept row (ZREMs a deleted one) after it (a crash in between leaves a row the index lists again
  at the agent's next update).

  KEYS[1]  fleet row hash     <prefix>:fleet:agent:{<agentId>}

${ARGS}
]]
${MERGE_ROW}local row = merge(KEYS[1], 3)
return { row }
`;
