/**
 * The record part of respond-signal, on KEYS[1] (the signal record): returns not_found, corrupt,
 * forbidden, invalid_action, duplicate or conflict from the script, else records the answer and
 * falls through with the record's fields in the local r. The Lua in onAnswered runs when the record
 * already holds an answer. Shared by respond-signal and respond-signal-core (Redis Cluster).
 */
export function respondSignalRecord(onAnswered: string): string {
  return `local record = KEYS[1]
if redis.call('EXISTS', record) == 0 then
  return { 'not_found' }
end
local r = redis.call('HMGET', record, 'agent_id', 'intensity', 'response', 'trigger', 'source', 'signal_id', 'hook_id', 'type', 'session_id', 'answer')
if not r[1] or not r[2] then
  return { 'corrupt', redis.call('HGETALL', record) }
end
if r[1] ~= ARGV[1] then
  return { 'forbidden' }
end
if r[2] ~= ARGV[2] then
  return { 'invalid_action', r[2] }
end
if r[3] then
${onAnswered}  -- A record answered before the 'answer' field existed compares whole responses.
  if (r[10] and r[10] == ARGV[9]) or (not r[10] and r[3] == ARGV[3]) then
    return { 'duplicate', redis.call('HGETALL', record) }
  end
  return { 'conflict', redis.call('HGETALL', record) }
end
redis.call('HSET', record, 'response', ARGV[3], 'answer', ARGV[9])
`;
}

/** Source of the respond-signal script; see its header. */
export const RESPOND_SIGNAL_LUA = `--[[
  respond-signal (2 keys): records an agent's first valid response to a signal.

  KEYS[1]  signal record hash  <prefix>:signal:{<signalId>}
  KEYS[2]  signal log stream   <prefix>:signal-log

  ARGV[1]  agent id of the responder
  ARGV[2]  the intensity the response's action answers (each action answers exactly one)
  ARGV[3]  the response as canonical JSON (sorted keys): equal responses are equal strings
  ARGV[4]  the action
  ARGV[5]  log timestamp (ISO 8601)
  ARGV[6]  signal log MAXLEN (approximate trimming)
  ARGV[7]  unanswered-signals key before the agent id (<prefix>:unanswered:{)
  ARGV[8]  unanswered-signals key after the agent id (})
  ARGV[9]  the answer as canonical JSON: action and details, without consumed_at (a re-send
           stamps the time again and is still the same answer); stored as field 'answer'
  ARGV[10] 'inferred' when the control plane inferred the answer from what a client that cannot
           report answers did next (written to the log entry as answer = 'inferred'), else ''

  Checks, in this order, and returns
    { 'not_found' }                 no record (never sent, or expired)
    { 'forbidden' }                 the signal was sent to another agent
    { 'invalid_action', intensity } the action does not answer this intensity
    { 'duplicate', HGETALL }        the same answer (action and details) is already recorded; nothing changed
    { 'conflict', HGETALL }         another answer is recorded; nothing changed
    { 'recorded', HGETALL }         stored now, and a 'response' entry appended to the log
    { 'corrupt', HGETALL }          the record has no agent_id or intensity; nothing changed
  Nothing changes unless the reply is 'recorded', except that on 'recorded', 'duplicate' and
  'conflict' (the signal has an answer) it leaves the agent's unanswered set
  <prefix>:unanswered:{<agent_id of the record>} (see decide-hook; built here, not declared in
  KEYS, because only the record knows its agent).
]]
local function answered(r)
  if r[1] and r[1] ~= '' then
    redis.call('ZREM', ARGV[7] .. r[1] .. ARGV[8], r[6] or '')
  end
end
${respondSignalRecord('  answered(r)\n')}answered(r)
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*',
  'kind', 'response', 'timestamp', ARGV[5], 'hook', r[4] or '', 'intensity', r[2],
  'source', r[5] or '', 'consumed', '1', 'action', ARGV[4], 'signal_id', r[6] or '',
  'hook_id', r[7] or '', 'type', r[8] or '', 'agent_id', r[1], 'session_id', r[9] or '',
  'answer', ARGV[10] or '')
return { 'recorded', redis.call('HGETALL', record) }
`;
