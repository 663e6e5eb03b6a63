/** Source of the session-open script; see its header. */
export const SESSION_OPEN_LUA = `--[[
  session-open (1 key): resumes a session of an agent, or creates it.

  KEYS[1]  session hash  <prefix>:session:{<sessionId>}

  ARGV[1]  agent id
  ARGV[2]  now (epoch ms)
  ARGV[3]  TTL (ms) after this use
  ARGV[4]  '1' to create the session when it does not exist, '0' to only resume

  Returns
    'resumed'  it exists and belongs to ARGV[1]; its TTL restarts
    'foreign'  it belongs to another agent; nothing changed
    'created'  it did not exist and ARGV[4] is '1'
    'missing'  it did not exist and ARGV[4] is '0'
]]
local owner = redis.call('HGET', KEYS[1], 'agent_id')
if owner then
  if owner ~= ARGV[1] then
    return 'foreign'
  end
  redis.call('HSET', KEYS[1], 'last_used_at', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 'resumed'
end
if ARGV[4] ~= '1' then
  return 'missing'
end
redis.call('HSET', KEYS[1], 'agent_id', ARGV[1], 'created_at', ARGV[2], 'last_used_at', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 'created'
`;
