import { describe, expect, it } from 'vitest';
import { StoreInputError } from './errors.js';
import { leaseTokens } from './rate-lease.js';
import type { LeaseRequest, RateDecision, RateLimiter } from './rate-limiter.js';

/** A shared bucket in memory with the script's lease arithmetic, and a record of every call. */
function bucket(tokens: number): RateLimiter & { calls: { cost: number; lease?: LeaseRequest }[]; left: () => number; gate?: Promise<void> } {
  let left = tokens;
  const calls: { cost: number; lease?: LeaseRequest }[] = [];
  const self = {
    kind: 'agent',
    limit: { ratePerSecond: 1, burst: tokens },
    calls,
    left: () => left,
    gate: undefined as Promise<void> | undefined,
    async take(_subject: string, cost = 1, lease?: LeaseRequest): Promise<RateDecision> {
      calls.push(lease === undefined ? { cost } : { cost, lease });
      await self.gate;
      if (left < cost) return { allowed: false, retryAfterMs: 50 };
      const granted = lease === undefined ? cost : Math.max(cost, Math.min(lease.upTo, Math.floor(left / lease.share), left));
      left -= granted;
      return { allowed: true, remaining: left, granted, failedOpen: false };
    },
  };
  return self;
}

describe('leaseTokens', () => {
  it('asks the shared bucket once for several frames and never spends a token it was not granted', async () => {
    const shared = bucket(200);
    const limiter = leaseTokens(shared, { maxLease: 16, share: 8 });
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 32; i++) decisions.push(await limiter.take('alpha'));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(shared.calls).toEqual([{ cost: 1, lease: { upTo: 16, share: 8 } }, { cost: 1, lease: { upTo: 16, share: 8 } }]);
    expect(shared.left()).toBe(200 - 32);
  });

  it('hands out a nearly empty bucket one token at a time and passes the refusal and its hint on', async () => {
    const shared = bucket(12);
    const limiter = leaseTokens(shared, { maxLease: 16, share: 8 });
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 13; i++) decisions.push(await limiter.take('alpha'));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(12);
    expect(decisions.at(-1)).toEqual({ allowed: false, retryAfterMs: 50 });
  });

  it('lets concurrent frames of one subject share one refill', async () => {
    const shared = bucket(1_000);
    let open!: () => void;
    shared.gate = new Promise((resolve) => (open = resolve));
    const limiter = leaseTokens(shared, { maxLease: 16, share: 8 });
    const pending = Array.from({ length: 10 }, () => limiter.take('alpha'));
    open();
    const decisions = await Promise.all(pending);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(shared.calls).toHaveLength(1);
  });

  it('drops what was not spent within the lease time, and keeps subjects apart', async () => {
    let clock = 1_000;
    const shared = bucket(1_000);
    const limiter = leaseTokens(shared, { maxLease: 16, share: 8, leaseTtlMs: 100, now: () => clock });
    await limiter.take('alpha');
    await limiter.take('beta');
    expect(shared.calls).toHaveLength(2);
    await limiter.take('alpha');
    expect(shared.calls).toHaveLength(2);
    clock += 100;
    await limiter.take('alpha');
    expect(shared.calls).toHaveLength(3);
    // 16 + 16 + 16 taken, 4 spent: the rest counted, never used.
    expect(shared.left()).toBe(1_000 - 48);
  });

  it('does not lease when Redis could not be asked, nor for costs other than one', async () => {
    const failing: RateLimiter = {
      kind: 'agent',
      limit: { ratePerSecond: 1, burst: 10 },
      take: async () => ({ allowed: true, remaining: 0, granted: 0, failedOpen: true }),
    };
    const limiter = leaseTokens(failing, { maxLease: 16 });
    expect(await limiter.take('alpha')).toMatchObject({ failedOpen: true });
    const shared = bucket(100);
    await leaseTokens(shared, { maxLease: 16 }).take('alpha', 3);
    expect(shared.calls).toEqual([{ cost: 3 }]);
  });

  it('spends tokens credited from elsewhere (open-hook’s lease) before asking, and drops them when they expire', async () => {
    let clock = 0;
    const shared = bucket(100);
    const limiter = leaseTokens(shared, { maxLease: 16, leaseTtlMs: 1_000, now: () => clock });
    expect(limiter.lease).toEqual({ upTo: 16, share: 8 });
    expect(limiter.spendLeased('alpha')).toBe(false);
    limiter.credit('alpha', 2);
    expect(limiter.spendLeased('alpha')).toBe(true);
    expect(await limiter.take('alpha')).toMatchObject({ allowed: true, granted: 1 });
    expect(shared.calls).toHaveLength(0);
    expect(limiter.spendLeased('alpha')).toBe(false);
    limiter.credit('alpha', 3);
    clock += 1_000;
    expect(limiter.spendLeased('alpha')).toBe(false);
    // A credit after expiry replaces what expired; nonsense credits are ignored.
    limiter.credit('alpha', 1);
    limiter.credit('alpha', -4);
    limiter.credit('alpha', 0.5);
    expect(limiter.spendLeased('alpha')).toBe(true);
    expect(limiter.spendLeased('alpha')).toBe(false);
  });

  it('keeps a credit that arrives while a refill is in flight', async () => {
    const shared = bucket(100);
    let open!: () => void;
    shared.gate = new Promise<void>((resolve) => (open = resolve));
    const limiter = leaseTokens(shared, { maxLease: 16, share: 1 });
    const refill = limiter.take('alpha');
    limiter.credit('alpha', 3);
    open();
    expect(await refill).toMatchObject({ allowed: true, granted: 16 });
    // 15 from the refill and 3 from the credit, all spent without asking again.
    for (let i = 0; i < 18; i++) expect(limiter.spendLeased('alpha')).toBe(true);
    expect(limiter.spendLeased('alpha')).toBe(false);
    expect(shared.calls).toHaveLength(1);
  });

  it('passes takes through at a lease of one, and refuses leases that are not whole numbers', async () => {
    const shared = bucket(10);
    const single = leaseTokens(shared, { maxLease: 1 });
    expect(single.lease).toBeUndefined();
    single.credit('alpha', 5);
    expect(single.spendLeased('alpha')).toBe(false);
    await single.take('alpha');
    await single.take('alpha');
    expect(shared.calls).toEqual([{ cost: 1 }, { cost: 1 }]);
    expect(() => leaseTokens(shared, { maxLease: 0 })).toThrow(StoreInputError);
    expect(() => leaseTokens(shared, { maxLease: 4, share: 0.5 })).toThrow(StoreInputError);
  });
});
