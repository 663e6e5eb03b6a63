/**
 * Following the request audit stream as a Redis consumer group: every entry is handed to exactly
 * one member of the group (one process among the workers), and stays pending until that member
 * acknowledges it. An entry whose member died is claimed by another after `claimIdleMs`.
 *
 * The notification dispatcher uses it: requests are opened by gateways and workers alike, and
 * every one of them is recorded in this stream by the same script that creates it, so following
 * the stream finds every request without adding any work to the path that opens it.
 *
 * The group starts at the end of the stream when it is first created: requests opened before any
 * worker followed the stream are not announced afterwards.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@ahp/protocol';
import type { StoreKeys } from './keys.js';
import { attachLogging, type RedisClient } from './redis-client.js';
import { requestEventFromFields, type RequestEventRecord } from './request-events.js';

export interface RequestEventConsumerOptions {
  redis: RedisClient;
  keys: StoreKeys;
  /** The consumer group (one per purpose: every group sees every entry). */
  group: string;
  /** This process's name in the group (the worker id). */
  consumer: string;
  /** Handles one entry. Resolving acknowledges it; throwing leaves it pending, to be tried again after `claimIdleMs`. */
  onEvent(event: RequestEventRecord): Promise<void>;
  logger: Logger;
  /** @defaultValue `2000` */
  blockMs?: number;
  /** How long an entry stays pending with a member before another takes it. @defaultValue `30000` */
  claimIdleMs?: number;
  /** Attempts of one entry before it is acknowledged anyway and logged (a handler that always throws must not be retried for ever). @defaultValue `5` */
  maxAttempts?: number;
}

export interface RequestEventConsumer {
  /** Creates the group if needed, connects its own blocking connection and starts reading. */
  start(): Promise<void>;
  /** Stops reading (the blocking connection is destroyed) and waits for the entry in hand. Idempotent. */
  stop(): Promise<void>;
}

interface Entry {
  id: string;
  message: Record<string, string>;
}

function entriesOf(messages: unknown): Entry[] {
  if (!Array.isArray(messages)) return [];
  const out: Entry[] = [];
  for (const item of messages as unknown[]) {
    const { id, message } = (item ?? {}) as { id?: unknown; message?: unknown };
    if (typeof id === 'string') out.push({ id, message: typeof message === 'object' && message !== null ? (message as Record<string, string>) : {} });
  }
  return out;
}

export function createRequestEventConsumer(options: RequestEventConsumerOptions): RequestEventConsumer {
  const { redis, keys, group, consumer, logger } = options;
  const stream = keys.requestEvents;
  const blockMs = options.blockMs ?? 2_000;
  const claimIdleMs = options.claimIdleMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 5;
  const failures = new Map<string, number>();
  const abort = new AbortController();
  let running = false;
  let connection: RedisClient | undefined;
  let loop: Promise<void> | undefined;

  async function handle(client: RedisClient, entry: Entry): Promise<void> {
    let event: RequestEventRecord;
    try {
      event = requestEventFromFields(entry.id, entry.message, stream);
    } catch (error) {
      // Never parses, so never worth a retry.
      logger.error({ stream, entryId: entry.id, group, error: error instanceof Error ? error.message : String(error) }, 'skipping a request event that does not parse');
      await client.xAck(stream, group, entry.id);
      return;
    }
    try {
      await options.onEvent(event);
    } catch (error) {
      const count = (failures.get(entry.id) ?? 0) + 1;
      const fields = { stream, entryId: entry.id, group, requestId: event.requestId, attempts: count, error: error instanceof Error ? error.message : String(error) };
      if (count < maxAttempts) {
        failures.set(entry.id, count);
        logger.warn(fields, `handling a request event failed; it stays pending and is tried again after ${claimIdleMs} ms`);
        return;
      }
      failures.delete(entry.id);
      logger.error(fields, 'handling a request event failed too often; giving it up');
    }
    failures.delete(entry.id);
    await client.xAck(stream, group, entry.id);
  }

  async function run(client: RedisClient): Promise<void> {
    let lastClaim = 0;
    let errors = 0;
    while (running) {
      try {
        if (Date.now() - lastClaim >= claimIdleMs / 2) {
          // Entries left pending by a member that died (or by this one, after a failure).
          lastClaim = Date.now();
          const claimed = await client.xAutoClaim(stream, group, consumer, claimIdleMs, '0-0', { COUNT: 100 });
          for (const entry of entriesOf(claimed.messages)) if (running) await handle(client, entry);
        }
        const reply = await client.xReadGroup(group, consumer, { key: stream, id: '>' }, { COUNT: 100, BLOCK: blockMs });
        for (const batch of Array.isArray(reply) ? (reply as unknown[]) : []) {
          for (const entry of entriesOf((batch as { messages?: unknown } | null)?.messages)) if (running) await handle(client, entry);
        }
        errors = 0;
      } catch (error) {
        if (!running) return;
        const delay = Math.min(2_000, 50 * 2 ** Math.min(errors++, 6));
        logger.warn({ stream, group, delayMs: delay, error: error instanceof Error ? error.message : String(error) }, 'reading the request events failed; retrying');
        await sleep(delay, undefined, { signal: abort.signal }).catch(() => undefined);
      }
    }
  }

  return {
    async start() {
      if (running) throw new Error(`request event consumer ${group}/${consumer} was already started`);
      running = true;
      const name = `${keys.prefix}:events:${group}`.replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, 128);
      const client: RedisClient = redis.duplicate({ name });
      attachLogging(client, name, logger);
      connection = client;
      await client.connect();
      try {
        await client.xGroupCreate(stream, group, '$', { MKSTREAM: true });
      } catch (error) {
        if (!(error instanceof Error && error.message.includes('BUSYGROUP'))) {
          running = false;
          client.destroy();
          throw error;
        }
      }
      loop = run(client);
    },
    async stop() {
      if (!running && loop === undefined) return;
      running = false;
      abort.abort();
      if (connection?.isOpen) connection.destroy();
      await loop?.catch(() => undefined);
      loop = undefined;
    },
  };
}
