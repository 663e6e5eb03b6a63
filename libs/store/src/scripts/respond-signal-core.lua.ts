import { respondSignalRecord } from './respond-signal.lua.js';

/** Source of respond-signal-core: respond-signal for Redis Cluster, on the signal record's tag only (signal-store.ts). */
export const RESPOND_SIGNAL_CORE_LUA = `--[[
  respond-signal-core (1 key): the record part of respond-signal — the first valid answer wins.
  The caller then removes the signal from the agent's unanswered set (on 'recorded',
  'duplicate' and 'conflict', so a re-sent answer repairs a crash) and appends the log line (on
  'recorded' only: a crash in between loses that line, never the answer).

  KEYS[1]  signal record hash <prefix>:signal:{<signalId>}
  ARGV[1..4], ARGV[9]  as respond-signal (ARGV[5..8] unused)

  Returns what respond-signal returns.
]]
${respondSignalRecord('')}return { 'recorded', redis.call('HGETALL', record) }
`;
