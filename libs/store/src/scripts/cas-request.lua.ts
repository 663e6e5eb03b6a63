import { APPEND_INBOX_LUA } from './inbox-send.lua.js';

/** Number of fixed KEYS of cas-request, before the index keys. */
export const CAS_REQUEST_FIXED_KEYS = 7;

/**
 * The compare-and-set on the request's own hash tag (KEYS[1] hash, KEYS[2] history), shared by
 * cas-request and cas-request-core: returns 'stale' / 'corrupt' from the script, or writes state,
 * revision, history (and on create teams, incarnation, request_message_id; once settled the
 * expiry) and falls through with the locals id, rev and creating defined. ARGV as cas-request.
 * `cap` runs between the revision check and the first write: it may return without writing.
 */
function casRequestHashLua(cap: string): string {
  return `local hash = KEYS[1]
local current = redis.call('HMGET', hash, 'rev', 'state', 'teams', 'followups')
if not current[1] then
  if redis.call('EXISTS', hash) == 1 then
    return { 'corrupt' }
  end
  current[1] = '0'
end
if current[1] ~= ARGV[1] then
  return { 'stale', current[1], current[2] or '', current[3] or '', current[4] or '' }
end
${cap}local id = ARGV[2]
local rev = tonumber(current[1]) + 1
local creating = ARGV[1] == '0'
redis.call('HSET', hash, 'state', ARGV[3], 'rev', rev)
if creating then
  redis.call('HSET', hash, 'teams', ARGV[14], 'incarnation', ARGV[23])
  if ARGV[20] ~= '' then
    redis.call('HSET', hash, 'request_message_id', ARGV[20])
  end
end
redis.call('RPUSH', KEYS[2], ARGV[7])
if ARGV[15] ~= '' then
  redis.call('PEXPIRE', hash, ARGV[15])
  redis.call('PEXPIRE', KEYS[2], ARGV[15])
end
`;
}

/**
 * cas-request's per-sender cap (ARGV[26]), checked after the revision and before any write: a
 * new pending request whose sender already has that many pending is refused. The sender's
 * pending index is the last index to add to (KEYS[7 + a]) when a pending request is created.
 */
const CAS_REQUEST_CAP_LUA = `if ARGV[1] == '0' and ARGV[26] ~= '' then
  local pending = KEYS[${CAS_REQUEST_FIXED_KEYS} + tonumber(ARGV[18])]
  local count = redis.call('ZCARD', pending)
  if count >= tonumber(ARGV[26]) then
    return { 'full', tostring(count) }
  end
end
`;

/** Source of the cas-request script; see its header. */
export const CAS_REQUEST_LUA = `--[[
  cas-request (7 + a + r [+ 2] [+ 2] keys): writes a request's next state if its revision is still
  the one the caller read (compare-and-set), with every write that goes with the change. The state
  machine itself runs in TypeScript (the protocol's pure functions); this script only makes "read,
  decide, write" atomic: a caller that lost a race gets 'stale' and re-reads.

  KEYS[1]  request hash      <prefix>:request:{<id>}  fields state, rev, teams, incarnation,
                                                       request_message_id
  KEYS[2]  history list      <prefix>:request:{<id>}:history
  KEYS[3]  audit stream      <prefix>:requests:events
  KEYS[4]  deadline zset     <prefix>:requests:deadlines
  KEYS[5]  retention zset    <prefix>:requests:retention
  KEYS[6]  sender's gate     <prefix>:plan-gate:{<sender>}
  KEYS[7]  sender's plan verdict  <prefix>:plan-gate:{<sender>}:verdict
  KEYS[8 .. 7+a]        indexes to add the request to (score ARGV[6])
  KEYS[8+a .. 7+a+r]    indexes to remove it from
  then, if ARGV[20] ~= '': the recipient's inbox stream and id hash (message to deliver)
  then, if ARGV[22] == '1': the target's inbox stream and id hash (request message to withdraw)

  ARGV[1]   expected revision; '0' means the request must not exist yet (create)
  ARGV[2]   request id
  ARGV[3]   next state JSON (validated by the caller)
  ARGV[4]   next status
  ARGV[5]   request type
  ARGV[6]   created_at (epoch ms): the score in every index
  ARGV[7]   history entry JSON
  ARGV[8]   audit event (created, approved, rejected, expired, cancelled)
  ARGV[9]   audit time (ISO 8601)
  ARGV[10]  actor JSON
  ARGV[11]  audit stream MAXLEN (approximate trimming)
  ARGV[12]  deadline (epoch ms) to keep in the deadline zset, or '' to remove the request from it
  ARGV[13]  'add' or 'remove': the request's membership of the sender's plan gate
  ARGV[14]  teams JSON (stored on create only)
  ARGV[15]  retention (ms) once settled, or '' while pending: the hash and history expire after it
  ARGV[16]  purge time (epoch ms), when ARGV[15] is set
  ARGV[17]  retention member (JSON [id, incarnation, ...index keys]), when ARGV[15] is set
  ARGV[18]  a: number of indexes to add to
  ARGV[19]  r: number of indexes to remove from
  ARGV[20]  id of the inbox message to deliver, or ''
  ARGV[21]  its JSON (validated by the caller)
  ARGV[22]  '1' to withdraw the request message (request_message_id) from the target's inbox
  ARGV[23]  incarnation (stored on create only): a fresh token telling this request apart from a
            later one that reuses its id after it expired, for purge-request
  ARGV[24]  the plan verdict this change records in KEYS[7] ('approved', 'rejected', 'expired'),
            or '' to leave it (not a plan, still pending, or cancelled: withdrawing a plan must
            not erase an earlier rejection)
  ARGV[25]  its time (epoch ms)
  ARGV[26]  on create of a pending request: the most pending requests its sender may have (the
            sender's pending index is then the last index to add to), or '' for no limit

  Returns
    { 'ok', new revision, entry id of the delivered message or '' }
    { 'full', pending count }  the sender is at the limit; nothing changed
    { 'stale', current revision ('0' when the request does not exist), state JSON or '', teams JSON or '', followups or '' }
        the revision is not ARGV[1]; nothing changed
    { 'corrupt' }  the hash exists without a revision; nothing changed

  On create (ARGV[1] = '0') a delivered message is the request message to the target: its id is
  kept as request_message_id, so that settling the request can withdraw it while unacknowledged
  (an agent coming back online must not act on a request that is over).
]]
${APPEND_INBOX_LUA}
${casRequestHashLua(CAS_REQUEST_CAP_LUA)}local adds, removes = tonumber(ARGV[18]), tonumber(ARGV[19])
for i = 1, adds do
  redis.call('ZADD', KEYS[${CAS_REQUEST_FIXED_KEYS} + i], ARGV[6], id)
end
for i = 1, removes do
  redis.call('ZREM', KEYS[${CAS_REQUEST_FIXED_KEYS} + adds + i], id)
end
if ARGV[12] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[12], id)
else
  redis.call('ZREM', KEYS[4], id)
end
if ARGV[13] == 'add' then
  redis.call('SADD', KEYS[6], id)
else
  redis.call('SREM', KEYS[6], id)
end
if ARGV[24] ~= '' then
  redis.call('HSET', KEYS[7], 'status', ARGV[24], 'request_id', id, 'at', ARGV[25])
end
if ARGV[15] ~= '' then
  redis.call('ZADD', KEYS[5], ARGV[16], ARGV[17])
end

local pos = ${CAS_REQUEST_FIXED_KEYS} + adds + removes + 1
local delivered = ''
if ARGV[20] ~= '' then
  delivered = append_inbox(KEYS[pos], KEYS[pos + 1], ARGV[20], ARGV[21])
  pos = pos + 2
end
if ARGV[22] == '1' then
  local messageId = redis.call('HGET', hash, 'request_message_id')
  if messageId then
    remove_inbox(KEYS[pos], KEYS[pos + 1], messageId)
  end
end

redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[11], '*',
  'event', ARGV[8], 'request_id', id, 'type', ARGV[5], 'status', ARGV[4], 'at', ARGV[9],
  'actor', ARGV[10], 'rev', rev, 'state', ARGV[3])
return { 'ok', tostring(rev), delivered }
`;

/** Source of cas-request-core: cas-request for Redis Cluster, on the request's tag only (request-store.ts). */
export const CAS_REQUEST_CORE_LUA = `--[[
  cas-request-core (2 keys): the compare-and-set of cas-request, which decides; every other write
  of cas-request (indexes, deadline and retention sets, plan gate and verdict, inboxes, the audit
  stream) is a follow-up the caller makes after it, one key or one tag at a time. The follow-ups
  are stored in the hash (field followups) in the same step, and removed once done: whoever reads
  the request next and finds them (a retried create, a repeated decide, the next transition, a
  listing) runs them again first, so a crash between the parts is repaired (docs/deploy.md §8).

  KEYS[1]  request hash      <prefix>:request:{<id>}
  KEYS[2]  history list      <prefix>:request:{<id>}:history
  ARGV[1..25]  as cas-request (the per-sender cap is reserve-pending's, on the sender's tag)
  ARGV[26]  the follow-ups (JSON, built by the caller)

  Returns what cas-request returns ('ok' with no entry id: the inbox follow-up delivers).
]]
${casRequestHashLua('')}redis.call('HSET', hash, 'followups', ARGV[26])
return { 'ok', tostring(rev), '' }
`;

/** Source of request-followups-done: removes the follow-ups of a request once they ran, unless a newer transition replaced them. */
export const REQUEST_FOLLOWUPS_DONE_LUA = `--[[
  request-followups-done (1 key): compare-and-delete of the follow-ups field.

  KEYS[1]  request hash  <prefix>:request:{<id>}
  ARGV[1]  the follow-ups JSON that ran

  Returns 1 when removed, 0 when the field holds something else (or nothing).
]]
if redis.call('HGET', KEYS[1], 'followups') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'followups')
  return 1
end
return 0
`;

/** Source of request-followups-swept: removes a request from the follow-ups sweep set unless a later transition re-added it. */
export const REQUEST_FOLLOWUPS_SWEPT_LUA = `--[[
  request-followups-swept (1 key): compare-and-delete of a member of <prefix>:requests:followups.

  KEYS[1]  the sweep set
  ARGV[1]  request id
  ARGV[2]  the score it was added with (the transition's time, epoch ms)

  Returns 1 when removed, 0 when its score is another (a later transition's) or it is gone.
]]
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
`;

/** Source of reserve-pending: the per-sender cap under Redis Cluster, on the sender's tag. */
export const RESERVE_PENDING_LUA = `--[[
  reserve-pending (1 key): under Redis Cluster the request's hash and its sender's pending index
  are on different tags, so cas-request-core cannot count the index. This script takes the place
  in the index first, atomically with the count; the request is written after it (and the
  place released if the write finds the id taken).

  KEYS[1]  the sender's pending index  <prefix>:requests:pending-sender:{<sender>}
  ARGV[1]  request id
  ARGV[2]  its score (created_at, epoch ms)
  ARGV[3]  the most pending requests the sender may have

  Returns
    { 'held' }              the id is in the index already (a re-sent request)
    { 'reserved' }          added
    { 'full', count }       the sender is at the limit; nothing changed
]]
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return { 'held' }
end
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[3]) then
  return { 'full', tostring(count) }
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return { 'reserved' }
`;
