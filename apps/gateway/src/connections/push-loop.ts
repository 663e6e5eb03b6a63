/**
 * Pushing stored things (inbox messages, operator signals) to one connection: a notice starts a
 * pass that reads the store and pushes what is new; notices that arrive during a pass start one
 * more pass after it, never a second pass at the same time. `running` is cleared in the same
 * synchronous step that last checked `again`, so a notice is either seen by the current pass or
 * starts the next one; none falls in between.
 */
export class PushLoop {
  #running = false;
  #again = false;

  /** `pass` pushes what is pending and resolves false when delivery must stop (socket gone, store unreachable). */
  constructor(private readonly pass: () => Promise<boolean>) {}

  trigger(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    void this.#drain();
  }

  async #drain(): Promise<void> {
    try {
      do {
        this.#again = false;
        if (!(await this.pass())) return;
      } while (this.#again);
    } finally {
      this.#running = false;
    }
  }
}
