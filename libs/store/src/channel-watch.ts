/**
 * Watching a value that changes rarely and is announced on a pub/sub channel (the current hooks
 * configuration version, the current shadow): the announcement is only a hint, so every
 * announcement, every reconnect and a periodic timer re-read the value itself, and the callback
 * hears of each new value at least once. Pub/sub alone is best-effort: a message sent while the
 * subscriber reconnects is lost, and the timer bounds how long that can go unnoticed.
 */
import type { Logger } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import { attachLogging, type RedisClient } from './redis-client.js';

/** What {@link watchChannel} watches and how. */
export interface ChannelWatch<T> {
  /** A connected client; the watch subscribes on its own `duplicate()` of it. */
  readonly redis: RedisClient;
  readonly logger: Logger;
  /** The key prefix; the subscriber's connection is named `<prefix>:<what>-watch`. */
  readonly prefix: string;
  /** What is watched, for names and log lines (`config`, `shadow`). */
  readonly what: string;
  readonly channel: string;
  /** How often the value is re-read without an announcement (ms, positive). */
  readonly recheckMs: number;
  /** Reads the current value from Redis (the source of truth). */
  read(): Promise<T>;
  /** Whether `next` is news after `last` (`undefined`: nothing delivered yet). */
  isNews(next: T, last: T | undefined): boolean;
  /** Told every new value; a throw is logged and ignored. */
  onValue(value: T): void;
}

/** Subscribes, delivers the current value, and keeps re-reading until `stop`. */
export async function watchChannel<T>(watch: ChannelWatch<T>): Promise<{ stop(): Promise<void> }> {
  const { redis, logger, what, recheckMs } = watch;
  if (!Number.isFinite(recheckMs) || recheckMs <= 0) throw new StoreInputError(`recheckMs must be a positive number, got ${recheckMs}`);
  let last: T | undefined;
  let stopped = false;
  const recheck = async (): Promise<void> => {
    let value: T;
    try {
      value = await watch.read();
    } catch (error) {
      if (!stopped) logger.warn({ error: error instanceof Error ? error.message : String(error) }, `${what} watch: re-reading failed; will retry`);
      return;
    }
    if (stopped || !watch.isNews(value, last)) return;
    last = value;
    try {
      watch.onValue(value);
    } catch (error) {
      logger.error({ [what]: value, error }, `${what} watch callback threw; ignored`);
    }
  };

  const name = `${watch.prefix}:${what}-watch`.replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, 128);
  const subscriber: RedisClient = redis.duplicate({ name });
  attachLogging(subscriber, name, logger);
  // After a reconnect, node-redis subscribes again by itself; announcements sent meanwhile are lost, so re-read.
  let connected = false;
  subscriber.on('ready', () => {
    if (connected) void recheck();
    connected = true;
  });
  await subscriber.connect();
  try {
    // The message is only a hint: re-read, so an old message racing a newer change cannot win.
    await subscriber.subscribe(watch.channel, () => void recheck());
  } catch (error) {
    subscriber.destroy();
    throw error;
  }
  await recheck();
  const timer = setInterval(() => void recheck(), recheckMs);
  timer.unref();
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (subscriber.isOpen) subscriber.destroy();
    },
  };
}
