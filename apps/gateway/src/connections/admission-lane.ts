/**
 * At most `limit` tasks of one connection running at once; the rest wait their turn, in order.
 *
 * Why: every gateway talks to Redis over one shared, pipelined connection. A client that sends
 * hundreds of hooks at once (each admitted within `max_in_flight`) would otherwise put hundreds of
 * open-hook scripts and queue adds on that pipe in one go, and every other agent's hook would wait
 * behind all of them. Through a lane, a connection has a few admissions in Redis at a time, and
 * other connections' admissions interleave with its backlog. A client doing one hook at a time
 * never waits. The backlog is bounded by what feeds it (`max_in_flight` hooks per connection).
 */
export class AdmissionLane {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Tasks running now and waiting, for tests and logs. */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  /** Runs `task` once fewer than `limit` tasks of this lane run; resolves or rejects as it does. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running += 1;
    try {
      return await task();
    } finally {
      // Hand the place straight to the next task in line (the count stays), or give it back.
      const next = this.#waiting.shift();
      if (next === undefined) this.#running -= 1;
      else next();
    }
  }
}
