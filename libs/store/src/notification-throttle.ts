/**
 * The per-agent throttle of operator notifications (docs/notifications.md, "Throttle per agent"):
 * of one agent's requests to operators created in one fixed window, the first `maxPerWindow` are
 * notified one by one, the next one's place carries a single digest sent when the window ends
 * ("<agent> opened M more"), and the rest are only counted. The count lives in Redis, so every
 * worker shares it.
 *
 * `admit` is idempotent per request (its place is kept in the window's hash): a worker that routes the
 * same audit event again (it died before acknowledging it) gets the same place, so nobody is
 * notified twice and the digest is queued once.
 */
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, badReply } from './lua.js';
import type { RedisClient } from './redis-client.js';

const NOTIFY_ADMIT_LUA = `--[[
  notify-admit (1 key): a request's place among its agent's requests of one window, in the order
  they were admitted (a counter, not the creation time: two requests of one millisecond still get
  a place each, and a place never moves once given).

  KEYS[1]  <prefix>:notify:agent:{<agentId>}:<window start ms>  hash: request id -> place, '#n' -> places given
  ARGV[1]  request id
  ARGV[2]  how long the window's hash is kept (ms)

  Returns the 0-based place of the request in the window.
]]
local place = redis.call('HGET', KEYS[1], ARGV[1])
if not place then
  place = redis.call('HINCRBY', KEYS[1], '#n', 1) - 1
  redis.call('HSET', KEYS[1], ARGV[1], place)
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return tonumber(place)
`;

const notifyAdmit = new LuaScript('notify-admit', NOTIFY_ADMIT_LUA);

/** How long a window's set outlives the window: its digest is delivered (and retried) after the window ends. */
const WINDOW_KEEP_MS = 24 * 3_600_000;

/** What {@link NotificationThrottle.admit} decided for one request. */
export interface ThrottleAdmission {
  /** `notify`: one by one; `digest`: the first over the limit, which carries the window's digest; `counted`: counted only. */
  readonly kind: 'notify' | 'digest' | 'counted';
  /** 0-based place of the request among its agent's requests of the window. */
  readonly position: number;
  readonly windowStartMs: number;
  readonly windowEndMs: number;
}

/** See the module comment. */
export interface NotificationThrottle {
  readonly maxPerWindow: number;
  readonly windowMs: number;
  admit(agentId: string, requestId: string, createdMs: number): Promise<ThrottleAdmission>;
  /** Requests of the agent in the window starting at `windowStartMs` beyond the ones notified one by one. */
  beyond(agentId: string, windowStartMs: number): Promise<number>;
}

export interface NotificationThrottleOptions {
  readonly redis: RedisClient;
  readonly keys: StoreKeys;
  /** Requests of one agent notified one by one per window (at least 1). */
  readonly maxPerWindow: number;
  /** The window's length (ms, at least 1000). */
  readonly windowMs: number;
}

export function createNotificationThrottle(options: NotificationThrottleOptions): NotificationThrottle {
  const { redis, keys, maxPerWindow, windowMs } = options;
  if (!Number.isSafeInteger(maxPerWindow) || maxPerWindow < 1) throw new StoreInputError(`maxPerWindow must be a positive integer, got ${maxPerWindow}`);
  if (!Number.isSafeInteger(windowMs) || windowMs < 1_000) throw new StoreInputError(`windowMs must be at least 1000, got ${windowMs}`);
  return {
    maxPerWindow,
    windowMs,
    async admit(agentId, requestId, createdMs) {
      if (!Number.isSafeInteger(createdMs) || createdMs < 0) throw new StoreInputError(`createdMs must be epoch milliseconds, got ${createdMs}`);
      // Windows by the request's creation time, so a re-routed event falls in the same window.
      const windowStartMs = createdMs - (createdMs % windowMs);
      const key = keys.notificationWindow(agentId, windowStartMs);
      const reply = await notifyAdmit.run(redis, [key], [requestId, windowMs + WINDOW_KEEP_MS]);
      const position = Number(reply);
      if (typeof reply !== 'number' || !Number.isSafeInteger(position) || position < 0) throw badReply(key, notifyAdmit.name, reply);
      const kind = position < maxPerWindow ? 'notify' : position === maxPerWindow ? 'digest' : 'counted';
      return { kind, position, windowStartMs, windowEndMs: windowStartMs + windowMs };
    },
    async beyond(agentId, windowStartMs) {
      return Math.max(0, Number((await redis.hGet(keys.notificationWindow(agentId, windowStartMs), '#n')) ?? 0) - maxPerWindow);
    },
  };
}
