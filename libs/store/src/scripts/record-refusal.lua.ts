/**
 * record-refusal, one step (a single Redis) and split (Redis Cluster, request-store.ts), built from
 * one fragment: the history entry on the request's own tag. The split variant leaves the audit
 * line to the caller (a crash in between loses that line only).
 */

/** On the request's tag: returns 0 from the script when the request is gone, else appends the history entry (capped). */
const REFUSAL_HISTORY = `if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if redis.call('LLEN', KEYS[2]) < tonumber(ARGV[2]) then
  redis.call('RPUSHX', KEYS[2], ARGV[1])
end
`;

const ARGS = `  ARGV[1]  history entry JSON
  ARGV[2]  history length beyond which refusals go to the audit stream only
  ARGV[3]  request id
  ARGV[4]  request type
  ARGV[5]  current status
  ARGV[6]  time (ISO 8601)
  ARGV[7]  actor JSON
  ARGV[8]  audit stream MAXLEN (approximate trimming)
  ARGV[9]  why it was refused (or what happened)
  ARGV[10] the audit event: 'refused', or 'prompt_fallback' (an agent's permission prompt that
           waited for the request stopped waiting; the request stays as it is)

  Returns 1 when recorded, 0 when the request no longer exists (nothing written).

  The history cap keeps a caller that repeats a refused answer in a loop from growing the list
  without bound; RPUSHX because the history always exists with its request and must keep the
  request's TTL (a new list would have none).`;

/** Source of the record-refusal script; see its header. */
export const RECORD_REFUSAL_LUA = `--[[
  record-refusal (3 keys): records an answer the request refused (a contrary decision after it
  was decided, or a response of the wrong type) in its history and the audit stream. The state
  does not change, so no revision check: the refusal is a fact whatever happens next. Also
  records, the same way, that a permission prompt waiting for the request fell back.

  KEYS[1]  request hash   <prefix>:request:{<id>}
  KEYS[2]  history list   <prefix>:request:{<id>}:history
  KEYS[3]  audit stream   <prefix>:requests:events

${ARGS}
]]
${REFUSAL_HISTORY}redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[8], '*',
  'event', ARGV[10], 'request_id', ARGV[3], 'type', ARGV[4], 'status', ARGV[5], 'at', ARGV[6],
  'actor', ARGV[7], 'feedback', ARGV[9])
return 1
`;

/** Source of record-refusal-core: record-refusal for Redis Cluster without the audit line, which the caller appends when it answers 1. */
export const RECORD_REFUSAL_CORE_LUA = `--[[
  record-refusal-core (2 keys): the history part of record-refusal.

  KEYS[1]  request hash   <prefix>:request:{<id>}
  KEYS[2]  history list   <prefix>:request:{<id>}:history

${ARGS}
]]
${REFUSAL_HISTORY}return 1
`;
