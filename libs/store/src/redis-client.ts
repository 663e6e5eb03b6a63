/**
 * The one way gateway, workers and tests open a Redis connection.
 */
import { createClient, type RedisClientType } from 'redis';
import type { Logger } from './contracts.js';

/**
 * A connected node-redis client (RESP3, the `redis` package's default modules). Stores take it
 * as it is; the DecisionFeed and the BullMQ worker open their own blocking connections from it
 * with `duplicate()`, which keeps its options (reconnect strategy included).
 */
export type RedisClient = RedisClientType;

/** Options of {@link connectRedis}. */
export interface ConnectRedisOptions {
  /** `redis[s]://[[user][:password]@]host[:port][/db]`. */
  url: string;
  /** Connection name, sent with `CLIENT SETNAME` on every (re)connect, so `CLIENT LIST` shows who is who. Letters, digits and `._:-`. */
  name: string;
  logger: Logger;
  /**
   * Delay before the first reconnect attempt; each later attempt doubles it, up to
   * `maxReconnectDelayMs`, with up to 20 % random jitter so that many processes do not reconnect in
   * lockstep after a Redis restart.
   * @defaultValue `50`
   */
  minReconnectDelayMs?: number;
  /**
   * Upper bound of the reconnect delay. Reconnecting never gives up: a gateway or worker without
   * Redis cannot do anything useful, and commands issued meanwhile wait in the offline queue.
   * @defaultValue `5000`
   */
  maxReconnectDelayMs?: number;
  /**
   * How long one TCP connect may take before it counts as failed.
   * @defaultValue `5000`
   */
  connectTimeoutMs?: number;
}

/**
 * The reconnect delay for attempt `retries` (0-based): `min * 2^retries`, capped at `max`, plus
 * up to 20 % jitter. Exported for tests and for callers that reconnect something else the same way.
 */
export function reconnectDelay(retries: number, minMs: number, maxMs: number, random: () => number = Math.random): number {
  const base = Math.min(minMs * 2 ** Math.min(retries, 30), maxMs);
  return Math.round(base + base * 0.2 * random());
}

/**
 * Creates a node-redis client and connects it.
 *
 * The client gets an `error` listener that logs: node-redis emits `error` for every failed
 * connection attempt, and an `error` event without a listener would crash the process. Reconnects
 * follow {@link reconnectDelay} forever; `ready` after a reconnect is logged at info level.
 *
 * Resolves once connected. While Redis is unreachable it keeps retrying (each attempt logged),
 * also on the first connect, so a process started before its Redis simply waits for it; race it
 * with a timeout where start-up must fail fast.
 *
 * @throws TypeError for a name that `CLIENT SETNAME` would refuse.
 */
export async function connectRedis(options: ConnectRedisOptions): Promise<RedisClient> {
  const { url, name, logger } = options;
  const minDelay = options.minReconnectDelayMs ?? 50;
  const maxDelay = options.maxReconnectDelayMs ?? 5000;
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(name)) {
    throw new TypeError(`Redis connection name ${JSON.stringify(name)} must be 1-128 of letters, digits and . _ : -`);
  }
  const client: RedisClient = createClient({
    url,
    name,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5000,
      reconnectStrategy: (retries: number, cause: Error) => {
        const delay = reconnectDelay(retries, minDelay, maxDelay);
        logger.warn({ redisClient: name, retries, delayMs: delay, error: cause.message }, 'redis connection lost; reconnecting');
        return delay;
      },
    },
  });
  attachLogging(client, name, logger);
  await client.connect();
  return client;
}

/**
 * Adds the listeners every client needs: `error` (required, see {@link connectRedis}) and a
 * `ready` line after reconnects. Used for clients made with `duplicate()`, which do not inherit
 * listeners.
 */
export function attachLogging(client: RedisClient, name: string, logger: Logger): void {
  let everReady = false;
  client.on('error', (error: unknown) => {
    logger.warn({ redisClient: name, error: error instanceof Error ? error.message : String(error) }, 'redis client error');
  });
  client.on('ready', () => {
    if (everReady) logger.info({ redisClient: name }, 'redis connection re-established');
    everReady = true;
  });
}
