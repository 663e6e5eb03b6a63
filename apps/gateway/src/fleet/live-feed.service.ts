import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { OperatorLiveEvent } from '@ahp/protocol';
import type { LiveTail, RedisConfigStore } from '@ahp/store';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { CONFIG_STORE, LIVE_TAIL } from '../store/store.tokens.js';

/** A live feed subscriber: one operator's open event stream. */
export type LiveSubscriber = (events: readonly OperatorLiveEvent[]) => void;

/** Most open live streams per gateway: each holds a socket and a little memory. */
export const MAX_LIVE_SUBSCRIBERS = 1000;

/**
 * Fans what operators watch live out to the open streams of this gateway: one tail of the Redis
 * streams (fleet rows and timeline entries written by every gateway, request changes, signals)
 * and one watch of the hooks configuration, however many operators are connected. A subscriber
 * that throws is dropped; the others are not affected.
 */
@Injectable()
export class LiveFeedService implements OnModuleInit, OnModuleDestroy {
  /** Open streams: what to send them, and how to end them (at shutdown). */
  private readonly subscribers = new Map<LiveSubscriber, () => void>();
  private readonly log: JsonLogger;
  private configWatch: { stop(): Promise<void> } | undefined;

  constructor(
    @Inject(LIVE_TAIL) private readonly tail: LiveTail,
    @Inject(CONFIG_STORE) private readonly configs: RedisConfigStore,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'live-feed' });
  }

  async onModuleInit(): Promise<void> {
    await this.tail.start((events) => this.broadcast(events));
    // The watch also reports the version current when it starts; operators only need changes.
    let current = (await this.configs.current())?.version ?? 0;
    this.configWatch = await this.configs.watch((version) => {
      if (version <= current) return;
      current = version;
      this.broadcast([{ kind: 'config', version, at: new Date().toISOString() }]);
    });
  }

  async onModuleDestroy(): Promise<void> {
    // An open event stream is an open HTTP request: the server cannot close until it ends, and an
    // operator's console would otherwise hold a gateway's shutdown. Clients reconnect elsewhere.
    for (const end of [...this.subscribers.values()]) end();
    this.subscribers.clear();
    await this.configWatch?.stop();
    await this.tail.stop();
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /**
   * Adds a subscriber and the function that ends its stream (called at shutdown); returns its
   * unsubscribe function, or null when the gateway is at {@link MAX_LIVE_SUBSCRIBERS}.
   */
  subscribe(subscriber: LiveSubscriber, end: () => void): (() => void) | null {
    if (this.subscribers.size >= MAX_LIVE_SUBSCRIBERS) return null;
    this.subscribers.set(subscriber, end);
    return () => this.subscribers.delete(subscriber);
  }

  private broadcast(events: readonly OperatorLiveEvent[]): void {
    for (const subscriber of [...this.subscribers.keys()]) {
      try {
        subscriber(events);
      } catch (error) {
        this.subscribers.delete(subscriber);
        this.log.warn({ error }, 'dropping a live subscriber that failed');
      }
    }
  }
}
