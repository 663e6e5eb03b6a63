import { LATENCY_BUCKET_BOUNDS_MS, latencyBucket } from '@ahp/protocol';

/**
 * Decision latencies of the last `windowMs`, as a histogram over the protocol's fixed buckets
 * (so several gateways' windows add up). The window is split in slots that are recycled as time
 * moves on: memory is constant whatever the rate, and recording is one array increment.
 */
export class LatencyWindow {
  private readonly slots: number[][];
  private readonly slotStarts: number[];
  private readonly slotMs: number;

  constructor(
    readonly windowMs: number = 60_000,
    slotCount = 6,
  ) {
    this.slotMs = Math.ceil(windowMs / slotCount);
    this.slots = Array.from({ length: slotCount }, () => new Array<number>(LATENCY_BUCKET_BOUNDS_MS.length + 1).fill(0));
    this.slotStarts = new Array<number>(slotCount).fill(-Infinity);
  }

  record(latencyMs: number, now: number): void {
    const slot = this.slotFor(now);
    const bucket = latencyBucket(Math.max(0, latencyMs));
    slot[bucket] = (slot[bucket] as number) + 1;
  }

  /** Counts per bucket over the slots still inside the window at `now`. */
  counts(now: number): number[] {
    const total = new Array<number>(LATENCY_BUCKET_BOUNDS_MS.length + 1).fill(0);
    for (let i = 0; i < this.slots.length; i += 1) {
      if (now - (this.slotStarts[i] as number) >= this.windowMs) continue;
      const slot = this.slots[i] as number[];
      for (let b = 0; b < total.length; b += 1) total[b] = (total[b] as number) + (slot[b] as number);
    }
    return total;
  }

  private slotFor(now: number): number[] {
    const start = Math.floor(now / this.slotMs) * this.slotMs;
    const index = Math.floor(now / this.slotMs) % this.slots.length;
    const slot = this.slots[index] as number[];
    if (this.slotStarts[index] !== start) {
      slot.fill(0);
      this.slotStarts[index] = start;
    }
    return slot;
  }
}
