/**
 * DecisionFeed on Redis: a gateway reads its own decision stream with blocking XREAD on a
 * dedicated connection.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { HookDecisionSchema, type HookDecision } from '@ahp/protocol';
import type { DecisionFeed, Logger } from './contracts.js';
import type { StoreKeys } from './keys.js';
import { attachLogging, reconnectDelay, type RedisClient } from './redis-client.js';

/** Options of {@link createDecisionFeed}. */
export interface DecisionFeedOptions {
  /** The gateway's client; the feed blocks on its own `duplicate()` and never on this one. */
  redis: RedisClient;
  keys: StoreKeys;
  /** Whose stream to read: decisions routed to this gateway. */
  gatewayId: string;
  logger: Logger;
  /**
   * How long one XREAD blocks before it is issued again. Only bounds how often an idle feed
   * talks to Redis; `stop()` does not wait for it.
   * @defaultValue `5000`
   */
  blockMs?: number;
  /**
   * Entries read per XREAD.
   * @defaultValue `100`
   */
  batchSize?: number;
}

interface StreamMessage {
  id: string;
  fields: Record<string, unknown>;
}

/** The messages of an XREAD reply (node-redis's `[{ name, messages: [{ id, message }] }]`), skipping anything else. */
function messagesOf(reply: unknown): StreamMessage[] {
  if (!Array.isArray(reply)) return [];
  const out: StreamMessage[] = [];
  for (const stream of reply as unknown[]) {
    const messages = (stream as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(messages)) continue;
    for (const message of messages as unknown[]) {
      const { id, message: fields } = (message ?? {}) as { id?: unknown; message?: unknown };
      if (typeof id === 'string') out.push({ id, fields: typeof fields === 'object' && fields !== null ? (fields as Record<string, unknown>) : {} });
    }
  }
  return out;
}

type FeedState = 'idle' | 'running' | 'stopped';

/**
 * Creates the DecisionFeed of one gateway. See {@link DecisionFeed} for the guarantee.
 *
 * - `start` opens a dedicated connection (`redis.duplicate()`), takes the stream's newest id as
 *   its starting point (what XREAD `$` means, but as a concrete id, so nothing routed between
 *   `start` resolving and the first XREAD is missed) and resolves; from then on every entry
 *   routed to this gateway is delivered, in stream order. After a connection error it waits
 *   (exponential, up to 2 s) and reads on from the last id it saw, so a Redis restart or network
 *   blip loses nothing that Redis kept.
 * - Each entry is parsed with HookDecisionSchema; an entry that does not parse is logged and
 *   skipped. An exception from `onDecision` is logged; the feed goes on.
 * - `stop` destroys the blocking connection (no wait for XREAD's timeout), waits for the loop to
 *   end, and is idempotent. A stopped feed cannot be started again; create a new one.
 *
 * @throws Error from `start` when called twice.
 */
export function createDecisionFeed(options: DecisionFeedOptions): DecisionFeed {
  const { redis, keys, gatewayId, logger } = options;
  const blockMs = options.blockMs ?? 5000;
  const batchSize = options.batchSize ?? 100;
  const stream = keys.gatewayDecisions(gatewayId);
  const connectionName = `${keys.prefix}:feed:${gatewayId}`;
  const abort = new AbortController();
  let state: FeedState = 'idle';
  let connection: RedisClient | undefined;
  let loop: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;

  function deliver(message: StreamMessage, onDecision: (decision: HookDecision) => void): void {
    const raw = message.fields['decision'];
    let decision: HookDecision;
    try {
      if (typeof raw !== 'string') throw new Error('entry has no decision field');
      const parsed = HookDecisionSchema.safeParse(JSON.parse(raw));
      if (!parsed.success) throw new Error(parsed.error.issues.slice(0, 3).map((issue) => issue.message).join('; '));
      decision = parsed.data;
    } catch (error) {
      logger.error(
        { gatewayId, stream, entryId: message.id, error: error instanceof Error ? error.message : String(error) },
        'skipping a decision stream entry that does not parse',
      );
      return;
    }
    try {
      onDecision(decision);
    } catch (error) {
      logger.error(
        { gatewayId, correlationId: decision.hook_id, error: error instanceof Error ? error.message : String(error) },
        'decision handler threw',
      );
    }
  }

  async function run(client: RedisClient, fromId: string, onDecision: (decision: HookDecision) => void): Promise<void> {
    let lastId = fromId;
    let failures = 0;
    while (state === 'running') {
      let reply: unknown;
      try {
        reply = await client.xRead({ key: stream, id: lastId }, { BLOCK: blockMs, COUNT: batchSize });
        failures = 0;
      } catch (error) {
        if (state !== 'running') return;
        const delay = reconnectDelay(failures++, 50, 2000);
        logger.warn(
          { gatewayId, stream, lastId, delayMs: delay, error: error instanceof Error ? error.message : String(error) },
          'decision feed read failed; retrying from the last entry seen',
        );
        await sleep(delay, undefined, { signal: abort.signal }).catch(() => undefined);
        continue;
      }
      for (const message of messagesOf(reply)) {
        lastId = message.id;
        deliver(message, onDecision);
      }
    }
  }

  return {
    async start(onDecision: (decision: HookDecision) => void): Promise<void> {
      if (state !== 'idle') throw new Error(`decision feed of gateway ${gatewayId} was already started`);
      state = 'running';
      const client: RedisClient = redis.duplicate({ name: connectionName });
      attachLogging(client, connectionName, logger);
      connection = client;
      try {
        await client.connect();
        const newest = await client.xRevRange(stream, '+', '-', { COUNT: 1 });
        if (state !== 'running') return;
        loop = run(client, newest?.[0]?.id ?? '0-0', onDecision);
        logger.info({ gatewayId, stream }, 'decision feed started');
      } catch (error) {
        if (state !== 'running') return;
        state = 'stopped';
        client.destroy();
        throw error;
      }
    },

    stop(): Promise<void> {
      stopping ??= (async () => {
        const wasRunning = state === 'running';
        state = 'stopped';
        abort.abort();
        if (connection?.isOpen) connection.destroy();
        await loop?.catch(() => undefined);
        if (wasRunning) logger.info({ gatewayId, stream }, 'decision feed stopped');
      })();
      return stopping;
    },
  };
}
