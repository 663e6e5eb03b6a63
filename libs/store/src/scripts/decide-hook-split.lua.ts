/**
 * decide-hook split for Redis Cluster (hook-store.ts `decideSplit`): the deciding part, atomic on
 * the hook's own hash tag, and the per-signal record, atomic on the signal's tag. Everything else
 * decide-hook does in one step (unanswered set, signal log, route) becomes idempotent follow-up
 * commands on single keys, replayed whenever a decide answers "not first".
 */

import { decideHookDetail, decideHookRecord } from './decide-hook.lua.js';

/** Source of decide-hook-core. */
export const DECIDE_HOOK_CORE_LUA = `--[[
  decide-hook-core (2 keys): the hook-hash part of decide-hook — first writer wins — and the
  drill-down record, which shares the hook's tag.

  KEYS[1]  hook hash <prefix>:hook:{<hookId>}
  KEYS[2]  hook drill-down hash <prefix>:hook:{<hookId>}:detail
  ARGV[1]  decision JSON (validated by the caller)
  ARGV[2]  decided_at (epoch ms)
  ARGV[3]  decision TTL (ms)
  ARGV[4]  the decision's trigger, which must be the hook's
  ARGV[5]  the evaluation detail JSON, '' for none (written with the first decision only)
  ARGV[6]  its TTL (ms): the signal record TTL
  ARGV[7]  the evaluation summary JSON, '' for none: the hook hash's 'summary' (see decide-hook)

  Returns
    { 'missing' } | { 'mismatch', stored trigger }     nothing changed
    { 'first' | 'stored', decision JSON, owner, agent_id, session_id, trigger, hook_id, created_at, answers, decided_at }
]]
local function reply(h, kind, decision, decidedAt)
  return { kind, decision, h[3] or '', h[4] or '', h[5] or '', h[6] or '', h[7] or '', h[8] or '', h[10] or '', decidedAt }
end
${decideHookRecord(4, "  return reply(h, 'stored', h[2] or '', h[11] or ARGV[2])\n", 7)}${decideHookDetail(2, 5, 6)}return reply(h, 'first', ARGV[1], ARGV[2])
`;

/** Source of signal-record-put. */
export const SIGNAL_RECORD_PUT_LUA = `--[[
  signal-record-put (1 key): writes a signal record unless it exists (its response must survive).

  KEYS[1]  signal record hash <prefix>:signal:{<signalId>}
  ARGV[1]  record TTL (ms)
  ARGV[2..] field, value pairs

  Returns 1 when written now, 0 when it already existed.
]]
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;
