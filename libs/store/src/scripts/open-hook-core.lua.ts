import { OPEN_HOOK_CREATE_LUA, OPEN_HOOK_EXISTING_LUA } from './open-hook.lua.js';

/** Source of open-hook-core: open-hook for Redis Cluster, on the hook's tag only (hook-store.ts `openSplit`). */
export const OPEN_HOOK_CORE_LUA = `--[[
  open-hook-core (1 key): open-hook without the reads of other tags. The caller took the rate-limit
  token and read the plan gate, plan verdict and unanswered signals just before (each on its own
  tag) and passes what would refuse a new hook; a plan submitted between those reads and this
  script no longer blocks a tool call already on its way (docs/deploy.md §8).

  KEYS[1]  hook hash <prefix>:hook:{<hookId>}
  ARGV[1..8], ARGV[12]  as open-hook
  ARGV[14..]  the refusal of a new hook, when the pre-reads found one: { 'unanswered', ids… },
              { 'gated', request id } or { 'plan_required', status, request id }; absent to admit

  Returns what open-hook returns (never 'limited'; 'created' with 0 leased tokens, since the
  caller took them).
]]
local leased = 0
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then
  if #ARGV >= 14 then
    return { unpack(ARGV, 14) }
  end
${OPEN_HOOK_CREATE_LUA}end
${OPEN_HOOK_EXISTING_LUA}`;
