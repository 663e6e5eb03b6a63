/** Number of ARGV values per signal of a decision, after the fixed ones. */
export const DECIDE_HOOK_ARGS_PER_SIGNAL = 7;
/** Number of fixed ARGV values before the per-signal ones. */
export const DECIDE_HOOK_FIXED_ARGS = 20;

/**
 * The hook-hash part of decide-hook, on KEYS[1]: returns 'missing' or 'mismatch' from the script,
 * runs the Lua in onStored for a hook already decided (it must return), else stores the decision
 * (first writer wins) and falls through with the hook's fields in the local h (status, decision,
 * gateway_id, agent_id, session_id, trigger, hook_id, created_at, deadline_at, answers,
 * decided_at). ARGV[1] decision JSON, ARGV[2] decided_at, ARGV[3] decision TTL; the trigger the
 * decision is for is ARGV[triggerArg]; ARGV[summaryArg], when not '', is stored with the decision
 * as the hook's `summary` (it then lives exactly as long as the hook record). Shared by
 * decide-hook and decide-hook-core (Redis Cluster).
 */
export function decideHookRecord(triggerArg: number, onStored: string, summaryArg: number): string {
  return `local hook = KEYS[1]
local h = redis.call('HMGET', hook, 'status', 'decision', 'gateway_id', 'agent_id', 'session_id', 'trigger', 'hook_id', 'created_at', 'deadline_at', 'answers', 'decided_at')
if not h[1] then
  return { 'missing' }
end
if h[1] == 'decided' then
${onStored}end
if h[6] ~= ARGV[${triggerArg}] then
  return { 'mismatch', h[6] or '' }
end
if ARGV[${summaryArg}] ~= nil and ARGV[${summaryArg}] ~= '' then
  redis.call('HSET', hook, 'status', 'decided', 'decision', ARGV[1], 'decided_at', ARGV[2], 'summary', ARGV[${summaryArg}])
else
  redis.call('HSET', hook, 'status', 'decided', 'decision', ARGV[1], 'decided_at', ARGV[2])
end
-- open-hook gave the hash its deadline plus the decision TTL to live: a decision made by the
-- deadline keeps at least the decision TTL without touching it; a later one gets it now.
local deadline = tonumber(h[9] or '')
if not deadline or tonumber(ARGV[2]) > deadline then
  redis.call('PEXPIRE', hook, ARGV[3])
end
`;
}

/**
 * The drill-down part of decide-hook, run after the hook hash took a first decision: stores the
 * evaluation detail ARGV[detailArg] ('' for none: nothing written) in KEYS[keyIndex] with the
 * hook's created_at (local h) and decided_at (ARGV[2]), living ARGV[ttlArg] ms. Shared by
 * decide-hook and decide-hook-core.
 */
export function decideHookDetail(keyIndex: number, detailArg: number, ttlArg: number): string {
  return `if KEYS[${keyIndex}] and ARGV[${detailArg}] and ARGV[${detailArg}] ~= '' then
  redis.call('HSET', KEYS[${keyIndex}], 'detail', ARGV[${detailArg}], 'received_at', h[8] or '', 'decided_at', ARGV[2])
  redis.call('PEXPIRE', KEYS[${keyIndex}], ARGV[${ttlArg}])
end
`;
}

/** Source of the decide-hook script; see its header. */
export const DECIDE_HOOK_LUA = `--[[
  decide-hook (3 + n keys): stores a hook's decision if none is stored yet (first writer wins),
  with a signal record and a signal-log entry for each of its n signals, and the hook's
  drill-down record.

  KEYS[1]        hook hash            <prefix>:hook:{<hookId>}
  KEYS[2]        signal log stream    <prefix>:signal-log
  KEYS[3]        hook drill-down hash <prefix>:hook:{<hookId>}:detail (same slot as KEYS[1])
  KEYS[4..3+n]   signal record hashes <prefix>:signal:{<signalId>}, in signal order

  ARGV[1]  decision JSON (validated by the caller)
  ARGV[2]  decided_at (epoch ms)
  ARGV[3]  decision TTL (ms): how long, at least, the decided hook stays readable
  ARGV[4]  signal record TTL (ms)
  ARGV[5]  signal log MAXLEN (approximate trimming)
  ARGV[6]  log timestamp (ISO 8601) of the entries written now
  ARGV[7]  the decision's trigger, which must be the hook's
  ARGV[8]  the hooks configuration version of the decision, '' when it has none
  ARGV[9]  decision stream key before the owner id (<prefix>:gw:{)
  ARGV[10] decision stream key after the owner id (}:decisions)
  ARGV[11] decision stream MAXLEN (approximate trimming)
  ARGV[12] decision stream TTL (ms), set when this script creates the stream
  ARGV[13] answer grace (ms): how long the agent has to answer a signal it must answer
  ARGV[14] unanswered-signals key before the agent id (<prefix>:unanswered:{)
  ARGV[15] unanswered-signals key after the agent id (})
  ARGV[16] the evaluation detail JSON for the drill-down, '' for none (the caller sends it only
           with signals); written to KEYS[3] with received_at (the hash's created_at) and
           decided_at, living the signal record TTL
  ARGV[17] when the gateway enqueued the job (epoch ms), '' when unknown
  ARGV[18] when the worker picked it up (epoch ms), '' when unknown
  ARGV[19] W3C traceparent routed with the decision (with its decided_at), '' for none
  ARGV[20] the hook's evaluation summary JSON (oracle verdicts, enqueue and pick-up times), ''
           for none (the caller sends it only without a drill-down record): stored in KEYS[1]
           as 'summary', so it lives as long as the hook record
  then, for signal i, ARGV[21 + 7(i-1) ..]: signal id, intensity, source, type, rule ('' for none),
  '1' when the agent must answer it (block or control, see mustAnswer) else '0', and the signal's
  subject JSON ('' for none; SignalSubjectSchema: what it acted on, redacted, at most
  MAX_SIGNAL_SUBJECT_BYTES), written to its log entry as 'subject'

  A hook opened with answers = '0' comes from a client that cannot report answers (Claude Code's
  hooks): its signal-log entries carry answer = 'not_reported', so that the log does not count
  them as unanswered (an inferred answer may still follow, see respond-signal).

  A signal the agent must answer is added, when the hook was opened with answers = '1', to the
  agent's unanswered set <prefix>:unanswered:{<agent>} with score decided_at + grace, which
  open-hook reads and respond-signal empties. Per agent, not per session, so that a new session
  of the agent (a restart, a hello without session_id) is held too. Like the decision stream, its
  name is built here from the agent the hash names (not declared in KEYS; under Cluster a follow-up ZADD).

  Each log entry also carries config_version (when given), rule and subject (when given) and latency_ms: the
  time from the hook's created_at (set by open-hook) to decided_at; with ARGV[17..18] also that
  time per stage: gateway_ms (created → enqueued), queue_ms (enqueued → picked), worker_ms
  (picked → decided), each at least 0 (the worker's clock is not the gateway's).

  Returns
    { 'first',  ARGV[1], owner gateway id }   stored now
    { 'stored', stored decision JSON, owner gateway id }   an earlier decision stands; nothing changed
    { 'missing' }                             no correlation (never opened or expired); nothing changed
    { 'mismatch', stored trigger }            the decision is for another trigger; nothing changed

  The decision (the stored one on 'stored') is also routed here, in the same step: XADD to the
  owner's decision stream <prefix>:gw:{<owner>}:decisions, whose name is built from ARGV[9..10]
  because the owner is only known once the hash is read. That key is not declared in KEYS, which
  a single Redis allows and Redis Cluster does not (see keys.ts: under Cluster the route becomes a
  second call). The append does not create a stream that is missing unless it can give it
  the TTL (XADD NOMKSTREAM first; only when that finds no stream, XADD and PEXPIRE): a running
  gateway refreshes its stream's TTL itself. Routing on 'stored' as well means that a re-run after any failure re-delivers;
  receivers tolerate duplicates. Nothing is routed while the hook has no owner (the caller
  reports that hash as corrupt).

  A signal record that already exists is left alone (its response must survive); its log entry
  is still written.
]]
local function route(decision, owner, hookId, decidedAt)
  if owner == nil or owner == '' then return end
  local stream = ARGV[9] .. owner .. ARGV[10]
  local entry = { 'hook_id', hookId, 'decision', decision }
  -- Traced: the decision's time goes with its trace context, so that the gateway's delivery span
  -- starts where the drill-down's delivery stage does.
  if ARGV[19] ~= '' then
    entry[5] = 'traceparent'
    entry[6] = ARGV[19]
    entry[7] = 'decided_at'
    entry[8] = decidedAt
  end
  -- The owner's feed keeps its own stream alive while it runs (GatewayFeed: PEXPIRE every quarter
  -- of the TTL), so an append to a stream that exists costs nothing more. A stream that does not
  -- exist (its gateway stopped and the stream expired, or Redis lost it) is created here with the
  -- TTL, so the streams of gateways that are gone still expire.
  if not redis.call('XADD', stream, 'NOMKSTREAM', 'MAXLEN', '~', ARGV[11], '*', unpack(entry)) then
    redis.call('XADD', stream, 'MAXLEN', '~', ARGV[11], '*', unpack(entry))
    redis.call('PEXPIRE', stream, ARGV[12])
  end
end
${decideHookRecord(7, "  route(h[2] or '', h[3], h[7] or '', h[11] or ARGV[2])\n  return { 'stored', h[2] or '', h[3] or '' }\n", 20)}local agent, session, trigger, hookId = h[4] or '', h[5] or '', h[6], h[7] or ''
local latency = nil
if h[8] and tonumber(h[8]) and tonumber(ARGV[2]) then
  latency = math.max(tonumber(ARGV[2]) - tonumber(h[8]), 0)
end
local stages = {}
local enqueued, picked = tonumber(ARGV[17]), tonumber(ARGV[18])
if latency and enqueued and picked then
  stages = { 'gateway_ms', string.format('%d', math.max(enqueued - tonumber(h[8]), 0)),
    'queue_ms', string.format('%d', math.max(picked - enqueued, 0)),
    'worker_ms', string.format('%d', math.max(tonumber(ARGV[2]) - picked, 0)) }
end
${decideHookDetail(3, 16, 4)}for i = 1, #KEYS - 3 do
  local base = ${DECIDE_HOOK_FIXED_ARGS} + (i - 1) * ${DECIDE_HOOK_ARGS_PER_SIGNAL}
  local signalId, intensity, source, signalType, rule = ARGV[base + 1], ARGV[base + 2], ARGV[base + 3], ARGV[base + 4], ARGV[base + 5]
  local record = KEYS[i + 3]
  -- A hook opened before this field existed has none: tracked, as the default is to require answers.
  if ARGV[base + 6] == '1' and h[10] ~= '0' and agent ~= '' then
    local unanswered = ARGV[14] .. agent .. ARGV[15]
    redis.call('ZADD', unanswered, tonumber(ARGV[2]) + tonumber(ARGV[13]), signalId)
    redis.call('PEXPIRE', unanswered, ARGV[4])
  end
  if redis.call('EXISTS', record) == 0 then
    redis.call('HSET', record,
      'signal_id', signalId, 'hook_id', hookId, 'agent_id', agent, 'session_id', session,
      'trigger', trigger, 'intensity', intensity, 'source', source, 'type', signalType)
    redis.call('PEXPIRE', record, ARGV[4])
  end
  local entry = { 'kind', 'signal', 'timestamp', ARGV[6], 'hook', trigger, 'intensity', intensity,
    'source', source, 'consumed', '0', 'signal_id', signalId, 'hook_id', hookId,
    'type', signalType, 'agent_id', agent, 'session_id', session }
  if h[10] == '0' then
    entry[#entry + 1] = 'answer'
    entry[#entry + 1] = 'not_reported'
  end
  if rule ~= '' then
    entry[#entry + 1] = 'rule'
    entry[#entry + 1] = rule
  end
  if ARGV[base + 7] ~= '' then
    entry[#entry + 1] = 'subject'
    entry[#entry + 1] = ARGV[base + 7]
  end
  if ARGV[8] ~= '' then
    entry[#entry + 1] = 'config_version'
    entry[#entry + 1] = ARGV[8]
  end
  if latency then
    entry[#entry + 1] = 'latency_ms'
    entry[#entry + 1] = string.format('%d', latency)
  end
  for j = 1, #stages do
    entry[#entry + 1] = stages[j]
  end
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', unpack(entry))
end
route(ARGV[1], h[3], hookId, ARGV[2])
return { 'first', ARGV[1], h[3] or '' }
`;
