/**
 * Rate limits kept in Redis, so that every gateway counts against the same bucket: an agent that
 * spreads its frames over three gateways, or an operator script that round-robins them, gets the
 * same allowance as one talking to a single instance.
 *
 * Guarantees:
 * - `take` is atomic per subject (one Lua script, GCRA on Redis' clock): concurrent calls from any
 *   number of gateways never allow more than `burst` at once nor more than `ratePerSecond` on
 *   average.
 * - `take` never rejects and never waits long: when Redis fails or does not answer within
 *   `timeoutMs`, the request is allowed (`failedOpen: true`) and a warning is logged (at most one
 *   per `logEveryMs`). A limiter that blocked every agent while Redis restarts would turn a short
 *   outage into a total one; the work the frame asks for needs Redis anyway and fails on its own.
 */
import type { Logger } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { RATE_LIMIT_LUA } from './scripts/rate-limit.lua.js';

const rateLimitScript = new LuaScript('rate-limit', RATE_LIMIT_LUA);

/** A bucket's size and refill rate. */
export interface RateLimit {
  /** Sustained rate: tokens added per second (fractions allowed, e.g. 0.5 = one every 2 s). */
  readonly ratePerSecond: number;
  /** Bucket size: requests allowed at once after a quiet period. Whole number >= 1. */
  readonly burst: number;
}

/** The kind of the agents' buckets: an agent's frames and its hooks (counted in open-hook) share one. */
export const AGENT_RATE_KIND = 'agent';

/** The highest rate a bucket can express: one token per microsecond. */
export const MAX_RATE_PER_SECOND = 1_000_000;
/** The largest burst accepted. */
export const MAX_BURST = 1_000_000;

/** What {@link RateLimiter.take} decided. */
export type RateDecision =
  | {
      readonly allowed: true;
      /** Requests of cost 1 still allowed right now (0 when the call could not be counted). */
      readonly remaining: number;
      /** Tokens taken: the cost, more when a lease was asked for, 0 when the call could not be counted. */
      readonly granted: number;
      /** True when Redis could not be asked and the request was let through unchecked. */
      readonly failedOpen: boolean;
    }
  | {
      readonly allowed: false;
      /** Wait at least this long (whole ms, >= 1) before the same request is allowed. */
      readonly retryAfterMs: number;
    };

/** Asks for more tokens than the cost when the bucket has them, to spend them without asking again. */
export interface LeaseRequest {
  /** Take up to this many tokens (at least the cost). */
  readonly upTo: number;
  /** Take at most 1/share of what the bucket holds (beyond the cost). */
  readonly share: number;
}

/** One kind of subject (`agent`, `operator`) with its limit. */
export interface RateLimiter {
  readonly kind: string;
  readonly limit: RateLimit;
  /**
   * Takes `cost` tokens (default 1) from `subject`'s bucket — or, with `lease`, up to
   * `lease.upTo` of them (`granted` says how many); see the module comment for the guarantees.
   */
  take(subject: string, cost?: number, lease?: LeaseRequest): Promise<RateDecision>;
}

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  redis: RedisClient;
  keys: StoreKeys;
  /** What the subjects are; part of the key, so kinds never share a bucket. An id (`agent`, `operator`). */
  kind: string;
  limit: RateLimit;
  /** Where the fail-open warnings go. */
  logger: Logger;
  /**
   * Longest wait for Redis before the request is let through. Commands wait in node-redis'
   * offline queue while Redis is unreachable, so without it a frame would wait for the outage.
   * @defaultValue `250`
   */
  timeoutMs?: number;
  /**
   * At most one fail-open warning per this many ms (the others are counted in the next one).
   * @defaultValue `10000`
   */
  logEveryMs?: number;
}

/**
 * Checks a limit and returns the GCRA emission interval in whole microseconds (at least 1).
 * @throws StoreInputError naming the bad field.
 */
export function emissionIntervalUs(limit: RateLimit): number {
  if (!Number.isFinite(limit.ratePerSecond) || limit.ratePerSecond <= 0 || limit.ratePerSecond > MAX_RATE_PER_SECOND) {
    throw new StoreInputError(`ratePerSecond must be > 0 and <= ${MAX_RATE_PER_SECOND}, got ${limit.ratePerSecond}`);
  }
  if (!Number.isInteger(limit.burst) || limit.burst < 1 || limit.burst > MAX_BURST) {
    throw new StoreInputError(`burst must be a whole number from 1 to ${MAX_BURST}, got ${limit.burst}`);
  }
  return Math.max(1, Math.round(1_000_000 / limit.ratePerSecond));
}

/** The script's `{ allowed, retry_after_us, remaining, granted }` reply as a {@link RateDecision}. */
export function decodeRateReply(reply: unknown, key: string): RateDecision {
  const items = arrayReply(reply, key, rateLimitScript.name);
  const [allowed, retryAfterUs, remaining, granted] = items;
  if (typeof allowed !== 'number' || typeof retryAfterUs !== 'number' || typeof remaining !== 'number' || typeof granted !== 'number') {
    throw badReply(key, rateLimitScript.name, reply);
  }
  if (allowed === 1) return { allowed: true, remaining, granted, failedOpen: false };
  // Rounded up, so that a client that waits exactly this long is not refused again.
  return { allowed: false, retryAfterMs: Math.max(1, Math.ceil(retryAfterUs / 1000)) };
}

const TIMED_OUT = Symbol('timed out');

/** Creates a limiter for one kind of subject. @throws StoreInputError for an invalid limit or kind. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { redis, keys, kind, limit, logger } = options;
  const intervalUs = emissionIntervalUs(limit);
  keys.rateLimit(kind, 'probe'); // validates the kind once, at start
  const timeoutMs = options.timeoutMs ?? 250;
  const logEveryMs = options.logEveryMs ?? 10_000;
  let lastWarnAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;

  function failOpen(subject: string, reason: string, error?: unknown): RateDecision {
    const now = Date.now();
    if (now - lastWarnAt >= logEveryMs) {
      logger.warn({ kind, subject, reason, suppressed, ...(error === undefined ? {} : { error }) }, 'rate limit not checked (Redis unavailable); request allowed');
      lastWarnAt = now;
      suppressed = 0;
    } else {
      suppressed += 1;
    }
    return { allowed: true, remaining: 0, granted: 0, failedOpen: true };
  }

  return {
    kind,
    limit: Object.freeze({ ...limit }),
    async take(subject: string, cost = 1, lease?: LeaseRequest): Promise<RateDecision> {
      if (!Number.isInteger(cost) || cost < 1 || cost > limit.burst) {
        throw new StoreInputError(`cost must be a whole number from 1 to the burst (${limit.burst}), got ${cost}`);
      }
      if (lease !== undefined && !isValidLease(lease, cost)) {
        throw new StoreInputError(`a lease takes a whole number of tokens from the cost (${cost}) up and a whole share >= 1, got ${JSON.stringify(lease)}`);
      }
      const key = keys.rateLimit(kind, subject);
      let timer: NodeJS.Timeout | undefined;
      const args = lease === undefined ? [intervalUs, limit.burst, cost] : [intervalUs, limit.burst, cost, lease.upTo, lease.share];
      const run = rateLimitScript.run(redis, [key], args);
      const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
        timer.unref();
      });
      try {
        const reply = await Promise.race([run, timeout]);
        if (reply === TIMED_OUT) {
          // The command stays queued and counts once Redis is back; nothing waits for it.
          run.catch(() => undefined);
          return failOpen(subject, `no answer within ${timeoutMs} ms`);
        }
        return decodeRateReply(reply, key);
      } catch (error) {
        return failOpen(subject, 'the script failed', error);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** One take of `cost` tokens from the bucket at `key`, without a timeout or failing open: for a caller that must count (the split open-hook under Cluster). */
export async function takeTokens(redis: RedisClient, key: string, limit: RateLimit, cost = 1): Promise<RateDecision> {
  return decodeRateReply(await rateLimitScript.run(redis, [key], [emissionIntervalUs(limit), limit.burst, cost]), key);
}

/** Whether `lease` asks for a whole number of tokens from `cost` up, with a whole share >= 1. */
export function isValidLease(lease: LeaseRequest, cost = 1): boolean {
  return Number.isInteger(lease.upTo) && lease.upTo >= cost && Number.isInteger(lease.share) && lease.share >= 1;
}
