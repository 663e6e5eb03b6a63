/** Source of the replay-log-append script; see its header. */
export const REPLAY_LOG_APPEND_LUA = `--[[
  replay-log-append (1 key): appends one decided hook to a bucket of the replay log and applies
  both retentions in the same step, so the log never needs a sweeper.

  KEYS[1]  bucket  <prefix>:replay-log:{replay-<i>}   stream, one field "r" (ReplayRecord JSON)

  ARGV[1]  most entries the bucket keeps (XADD MAXLEN ~), integer >= 1
  ARGV[2]  retention in ms: entries older than this (by stream id, i.e. Redis's clock) are
           trimmed (XTRIM MINID ~), and the whole bucket expires this long after its last append
  ARGV[3]  the record (JSON)

  Returns the new entry's id. The count trim rides on the XADD; the age trim runs on one append in
  16 (those whose id falls on a millisecond divisible by 16) and takes the time from the new id,
  so an entry may outlive the retention until the bucket's next such append (and a bucket nobody
  appends to expires whole). Approximate trimming ("~") removes whole stream nodes only, so a
  bucket may hold a little more than ARGV[1] entries, or entries a little older than ARGV[2].
  Three commands per append: this runs on every decided hook.
]]
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'r', ARGV[3])
local now_ms = tonumber(string.match(id, '^(%d+)'))
local oldest = now_ms - tonumber(ARGV[2])
if now_ms % 16 == 0 and oldest > 0 then
  redis.call('XTRIM', KEYS[1], 'MINID', '~', tostring(oldest))
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return id
`;
