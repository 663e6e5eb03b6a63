/**
 * A small typed event emitter for the client facade. Two rules a generic emitter lacks:
 * - a throwing (or rejecting) handler is logged and never reaches the connection's read loop;
 * - events marked "held" are kept while nobody listens and delivered to the first listener,
 *   because a push can arrive in the same read as the `welcome`, before the application had the
 *   client in hand to subscribe. The buffer is bounded; the oldest event goes first.
 */
import type { Logger } from './logger.js';

type Handler<T> = (payload: T) => void | Promise<void>;

/** See the module comment. */
export class Emitter<Events extends object> {
  readonly #handlers = new Map<keyof Events, Set<Handler<never>>>();
  readonly #held = new Map<keyof Events, unknown[]>();
  readonly #warned = new Set<keyof Events>();
  readonly #holdable: ReadonlySet<keyof Events>;
  readonly #maxHeld: number;
  readonly #logger: Logger;

  constructor(options: { logger: Logger; hold?: readonly (keyof Events)[]; maxHeld?: number }) {
    this.#logger = options.logger;
    this.#holdable = new Set(options.hold ?? []);
    this.#maxHeld = options.maxHeld ?? 1_000;
  }

  /** Subscribes; returns the function that unsubscribes (calling it twice is harmless). */
  on<K extends keyof Events>(event: K, handler: Handler<Events[K]>): () => void {
    let set = this.#handlers.get(event);
    if (set === undefined) {
      set = new Set();
      this.#handlers.set(event, set);
    }
    set.add(handler as Handler<never>);
    const held = this.#held.get(event);
    if (held !== undefined) {
      this.#held.delete(event);
      for (const payload of held) this.#call(event, handler, payload as Events[K]);
    }
    return () => {
      set.delete(handler as Handler<never>);
    };
  }

  /** Delivers `payload` to every current handler, or holds it when the event is holdable and nobody listens. */
  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.#handlers.get(event);
    if (set === undefined || set.size === 0) {
      if (this.#holdable.has(event)) this.#hold(event, payload);
      return;
    }
    for (const handler of [...set]) this.#call(event, handler as Handler<Events[K]>, payload);
  }

  /** Forgets all handlers and held events (after the client closed). */
  clear(): void {
    this.#handlers.clear();
    this.#held.clear();
  }

  #hold<K extends keyof Events>(event: K, payload: Events[K]): void {
    let held = this.#held.get(event);
    if (held === undefined) {
      held = [];
      this.#held.set(event, held);
    }
    held.push(payload);
    if (held.length > this.#maxHeld) {
      held.shift();
      // Once per event name: an application that never listens should not drown its logs.
      if (!this.#warned.has(event)) {
        this.#warned.add(event);
        this.#logger.warn({ event: String(event), held: this.#maxHeld }, 'no listener: dropping the oldest held events');
      }
    }
  }

  #call<K extends keyof Events>(event: K, handler: Handler<Events[K]>, payload: Events[K]): void {
    try {
      const result = handler(payload);
      if (result instanceof Promise) {
        result.catch((error: unknown) => this.#logger.error({ event: String(event), error: String(error) }, 'event handler rejected'));
      }
    } catch (error) {
      this.#logger.error({ event: String(event), error: String(error) }, 'event handler threw');
    }
  }
}
