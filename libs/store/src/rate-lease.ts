/**
 * A {@link RateLimiter} that spends tokens it leased from the Redis bucket before asking again.
 *
 * An agent's frames are counted in Redis so that the limit holds across gateways; asking Redis
 * for every frame puts a round trip in front of every hook. Instead, when a subject's local
 * lease is empty, one call takes up to `maxLease` tokens from the shared bucket (never more than
 * `1/share` of what the bucket holds, so a nearly empty bucket is handed out one token at a
 * time), and the next frames spend them without a round trip.
 *
 * What stays true: every token is taken from the shared bucket before a frame uses it, so no
 * subject ever gets more than its rate and burst, whichever gateways it talks to. What it costs:
 * a token leased and not spent within `leaseTtlMs` is dropped — counted but unused — so a subject
 * may be refused slightly early (by at most what its gateways still held). Refusals always come
 * from Redis, with its retry hint; when Redis cannot be asked, the limiter below fails open and
 * nothing is leased.
 */
import type { LeaseRequest, RateDecision, RateLimiter } from './rate-limiter.js';
import { StoreInputError } from './errors.js';

/** Options of {@link leaseTokens}. */
export interface RateLeaseOptions {
  /** Most tokens one call to Redis takes for a subject. 1 turns leasing off. */
  readonly maxLease: number;
  /**
   * Take at most 1/share of the tokens the bucket holds.
   * @defaultValue `8`
   */
  readonly share?: number;
  /**
   * Leased tokens not spent within this long are dropped.
   * @defaultValue `1000`
   */
  readonly leaseTtlMs?: number;
  /** Clock (epoch ms), for tests. @defaultValue `Date.now` */
  readonly now?: () => number;
}

interface Lease {
  tokens: number;
  expiresAt: number;
  /** The refill in flight; callers that find the lease empty wait for it instead of asking too. */
  refill: Promise<RateDecision> | undefined;
}

/** How often, at most, expired leases are swept from memory. */
const SWEEP_EVERY_MS = 5_000;

/**
 * A leasing limiter also lets a caller that counts frames in a script of its own (open-hook) take
 * a lease there and spend it here: {@link LeasingRateLimiter.spendLeased} before the script, and
 * {@link LeasingRateLimiter.credit} with what the script granted.
 */
export interface LeasingRateLimiter extends RateLimiter {
  /** What to ask a bucket for when leasing; undefined when leasing is off (`maxLease` 1). */
  readonly lease: LeaseRequest | undefined;
  /** Spends one leased token of `subject` without asking Redis: false when it holds none (ask Redis, with {@link lease}). */
  spendLeased(subject: string): boolean;
  /** Adds `tokens` that were taken from `subject`'s bucket elsewhere to its lease (they expire like any lease). */
  credit(subject: string, tokens: number): void;
}

/** Wraps `limiter` so that takes of cost 1 spend leased tokens; see the module comment. */
export function leaseTokens(limiter: RateLimiter, options: RateLeaseOptions): LeasingRateLimiter {
  const { maxLease } = options;
  const share = options.share ?? 8;
  const leaseTtlMs = options.leaseTtlMs ?? 1_000;
  const now = options.now ?? Date.now;
  if (!Number.isInteger(maxLease) || maxLease < 1) throw new StoreInputError(`maxLease must be a whole number >= 1, got ${maxLease}`);
  if (!Number.isInteger(share) || share < 1) throw new StoreInputError(`share must be a whole number >= 1, got ${share}`);
  if (maxLease === 1) {
    return { kind: limiter.kind, limit: limiter.limit, lease: undefined, take: (subject, cost, lease) => limiter.take(subject, cost, lease), spendLeased: () => false, credit: () => {} };
  }
  const request: LeaseRequest = { upTo: Math.min(maxLease, limiter.limit.burst), share };
  const leases = new Map<string, Lease>();
  let sweptAt = now();

  function sweep(at: number): void {
    if (at - sweptAt < SWEEP_EVERY_MS) return;
    sweptAt = at;
    for (const [subject, lease] of leases) {
      if (lease.refill === undefined && (lease.tokens === 0 || lease.expiresAt <= at)) leases.delete(subject);
    }
  }

  async function refill(subject: string, lease: Lease): Promise<RateDecision> {
    const decision = await limiter.take(subject, 1, request);
    if (decision.allowed && decision.granted > 1) {
      // One of the granted tokens is the caller's. Added, not set: a credit (open-hook's lease)
      // may have arrived while this call was in flight.
      lease.tokens += decision.granted - 1;
      lease.expiresAt = now() + leaseTtlMs;
    }
    return decision;
  }

  function spendLeased(subject: string): boolean {
    const at = now();
    const entry = leases.get(subject);
    if (entry === undefined || entry.tokens === 0 || entry.expiresAt <= at) return false;
    entry.tokens -= 1;
    return true;
  }

  function credit(subject: string, tokens: number): void {
    if (!Number.isInteger(tokens) || tokens <= 0) return;
    const at = now();
    sweep(at);
    const entry = leases.get(subject);
    if (entry === undefined) {
      leases.set(subject, { tokens, expiresAt: at + leaseTtlMs, refill: undefined });
      return;
    }
    // Tokens of an expired lease are gone: they were dropped, not spent.
    entry.tokens = entry.expiresAt > at ? entry.tokens + tokens : tokens;
    entry.expiresAt = at + leaseTtlMs;
  }

  return {
    kind: limiter.kind,
    limit: limiter.limit,
    lease: request,
    spendLeased,
    credit,
    async take(subject: string, cost = 1, lease?: LeaseRequest): Promise<RateDecision> {
      // Only single frames are leased; anything else is asked as it is.
      if (cost !== 1 || lease !== undefined) return limiter.take(subject, cost, lease);
      for (;;) {
        const at = now();
        sweep(at);
        let entry = leases.get(subject);
        if (entry === undefined) {
          entry = { tokens: 0, expiresAt: 0, refill: undefined };
          leases.set(subject, entry);
        }
        if (entry.tokens > 0 && entry.expiresAt > at) {
          entry.tokens -= 1;
          return { allowed: true, remaining: entry.tokens, granted: 1, failedOpen: false };
        }
        entry.tokens = 0;
        if (entry.refill !== undefined) {
          // Someone is asking already: wait for that answer, then look at the lease again.
          const decision = await entry.refill;
          if (!decision.allowed || decision.failedOpen) return decision;
          continue;
        }
        const pending = refill(subject, entry);
        entry.refill = pending;
        try {
          return await pending;
        } finally {
          entry.refill = undefined;
        }
      }
    },
  };
}
