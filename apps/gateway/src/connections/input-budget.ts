/**
 * What an agent may make this gateway read, metered before any work is done on it.
 *
 * Every message an agent sends — valid or not, counted or free under its Redis rate limit — costs
 * this process CPU to read, measure and parse, and every other agent on the process waits while
 * it does. The agent's rate limit (`AHP_AGENT_RATE_PER_S`, in Redis) is checked only after a frame
 * was parsed and only for some frame types, so it cannot protect the process; these budgets can:
 * they are charged for each message the moment it arrives, in memory, with no I/O.
 *
 * The budgets are per agent, shared by all its connections to this gateway, so that neither
 * opening more connections nor reconnecting after being closed buys a fresh allowance. They live
 * in memory on purpose: they protect this process's CPU, which dies with it.
 */

/** A token bucket: holds up to `burst` tokens and gains `ratePerSecond` a second. Pure; the caller passes the clock. */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.at = now;
  }

  /** Takes `amount` tokens if the bucket holds them; otherwise takes nothing and returns false. */
  take(amount: number, now: number): boolean {
    this.refill(now);
    if (this.tokens < amount) return false;
    this.tokens -= amount;
    return true;
  }

  /** Gives back `amount` tokens taken earlier (never beyond the burst). */
  give(amount: number, now: number): void {
    this.refill(now);
    this.tokens = Math.min(this.burst, this.tokens + amount);
  }

  /** Whether the bucket is full again (it is then indistinguishable from a new one). */
  isFull(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.burst;
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.ratePerSecond) / 1000);
    this.at = now;
  }
}

/** The limits of {@link InputBudgets}, from the gateway's configuration. */
export interface InputBudgetLimits {
  /** Messages per second, on average. */
  framesPerSecond: number;
  /** Messages at once after a quiet period. */
  frameBurst: number;
  /** Bytes per second, on average (see {@link VALUE_WEIGHT_BYTES} for what a message costs). */
  bytesPerSecond: number;
  /** Bytes at once after a quiet period; at least the largest message the transport accepts. */
  byteBurst: number;
}

/**
 * What one JSON value of a frame costs at least, in bytes of budget. Parsing and validating cost
 * per value, not per byte: 900 KB of small numbers is 450,000 values and took about 140 ms, 900
 * KB of one string about 1 ms. A message costs the larger of its size and 16 bytes per value, so
 * the byte budget bounds the work, whatever the shape (ordinary frames have more than 16 bytes
 * per value and pay their size).
 */
export const VALUE_WEIGHT_BYTES = 16;

/** Which budget a message exceeded. */
export type InputOverrun = 'frames' | 'bytes';

/** Per-agent frame and byte budgets of this gateway. */
export class InputBudgets {
  private readonly agents = new Map<string, { frames: TokenBucket; bytes: TokenBucket }>();

  constructor(readonly limits: Readonly<InputBudgetLimits>) {}

  /** Agents with a budget in use (not yet refilled). */
  get size(): number {
    return this.agents.size;
  }

  /**
   * Charges `frames` messages and `bytes` bytes to `agentId`'s budgets; null when they held
   * them, otherwise the budget that did not (and nothing is charged).
   */
  charge(agentId: string, frames: number, bytes: number, now: number): InputOverrun | null {
    let budget = this.agents.get(agentId);
    if (budget === undefined) {
      budget = {
        frames: new TokenBucket(this.limits.framesPerSecond, this.limits.frameBurst, now),
        bytes: new TokenBucket(this.limits.bytesPerSecond, this.limits.byteBurst, now),
      };
      this.agents.set(agentId, budget);
    }
    if (frames > 0 && !budget.frames.take(frames, now)) return 'frames';
    if (bytes > 0 && !budget.bytes.take(bytes, now)) {
      // Give the message back: it is refused as a whole.
      if (frames > 0) budget.frames.give(frames, now);
      return 'bytes';
    }
    return null;
  }

  /** Forgets budgets that have refilled: a new one would be the same, so memory stays bounded by the agents active lately. */
  sweep(now: number): void {
    for (const [agentId, budget] of this.agents) {
      if (budget.frames.isFull(now) && budget.bytes.isFull(now)) this.agents.delete(agentId);
    }
  }
}

/**
 * Frames one connection may have refused (not JSON, unknown type, invalid, too large) before it
 * is closed with 4400 `PROTOCOL_VIOLATION`: a burst of {@link REFUSED_FRAME_BURST}, then
 * {@link REFUSED_FRAMES_PER_SECOND} a second. A correct client sends none (the SDK checks every
 * frame before sending); one that keeps sending them is broken or hostile, and must stop.
 */
export const REFUSED_FRAME_BURST = 100;
/** See {@link REFUSED_FRAME_BURST}. */
export const REFUSED_FRAMES_PER_SECOND = 10;
