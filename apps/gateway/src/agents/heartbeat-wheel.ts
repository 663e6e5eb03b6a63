/**
 * Spreads a periodic visit of many members (the gateway pinging its agents) evenly over the
 * period, instead of visiting all of them in one synchronous loop.
 *
 * Why: with 20,000 agents a single loop of `ws.ping()` keeps the event loop busy for hundreds
 * of milliseconds, and the 20,000 pongs then arrive together, each one refreshing presence in
 * Redis on the connection that also carries hooks. Decisions that land in that burst waited for
 * it (p95 467 ms at 19,500 agents, 17.6 ms at 10,000). Split into slices visited one per tick,
 * every member is still visited exactly once per period, and each tick does 1/slices of the work.
 *
 * Members are dealt to slices round robin as they join, so agents that connect together (a fleet
 * starting, a reconnect storm after a gateway restart) still land in different slices.
 */
export class HeartbeatWheel<T> {
  private readonly slices: Set<T>[];
  private readonly sliceOf = new Map<T, number>();
  /** The slice the next member joins. */
  private dealt = 0;
  /** The slice the next {@link turn} visits. */
  private hand = 0;

  /**
   * @param sliceCount how many ticks one period is cut into (at least 1); a period of
   *   `periodMs` ticks every `periodMs / sliceCount`.
   */
  constructor(sliceCount: number) {
    if (!Number.isInteger(sliceCount) || sliceCount < 1) throw new RangeError(`slice count must be a positive integer, got ${sliceCount}`);
    this.slices = Array.from({ length: sliceCount }, () => new Set<T>());
  }

  /** How many slices a period of `periodMs` gets when the wheel should tick about every `tickMs`. */
  static slicesFor(periodMs: number, tickMs: number): number {
    return Math.max(1, Math.round(periodMs / tickMs));
  }

  get sliceCount(): number {
    return this.slices.length;
  }

  get size(): number {
    return this.sliceOf.size;
  }

  add(member: T): void {
    if (this.sliceOf.has(member)) return;
    const slice = this.dealt;
    this.dealt = (this.dealt + 1) % this.slices.length;
    this.slices[slice]?.add(member);
    this.sliceOf.set(member, slice);
  }

  delete(member: T): void {
    const slice = this.sliceOf.get(member);
    if (slice === undefined) return;
    this.slices[slice]?.delete(member);
    this.sliceOf.delete(member);
  }

  /**
   * Advances one tick and returns the members of the slice it reached (a copy: the caller may
   * remove members, e.g. terminate dead peers, while it goes through them).
   */
  turn(): T[] {
    const slice = this.slices[this.hand] ?? new Set<T>();
    this.hand = (this.hand + 1) % this.slices.length;
    return [...slice];
  }
}
