/**
 * GatewayFeed on Redis: a gateway reads its own feed stream (`<prefix>:gw:{<gatewayId>}:decisions`)
 * with blocking XREAD on a dedicated connection, and dispatches each entry by its `kind`.
 *
 * Entry formats (fields of one stream entry):
 * - decision: `{ hook_id, decision }` (decision JSON), written by `HookStore.decide`. Entries
 *   without a `kind` field are decisions: that is how they were written before the feed carried
 *   anything else, and how `decide` still writes them.
 * - inbox: `{ kind: 'inbox', agent_id }`, written after a message was appended to the inbox of an
 *   agent whose presence entry names this gateway (see {@link notifyInbox}).
 * - signal: `{ kind: 'signal', agent_id }`, written after an operator pushed a signal to an agent
 *   whose presence entry names this gateway (see {@link notifyInbox} with kind `signal`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { HookDecisionSchema, IdSchema, type HookDecision } from '@ahp/protocol';
import type { Logger } from '@ahp/protocol';
import type { GatewayFeed, GatewayFeedHandlers, InboxNotice } from './contracts.js';
import { StoreDataError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { attachLogging, reconnectDelay, type RedisClient } from './redis-client.js';
import { describeIssues } from './validate.js';

/** Options of {@link createGatewayFeed}. */
export interface GatewayFeedOptions {
  /** The gateway's client; the feed blocks on its own `duplicate()` and never on this one. */
  redis: RedisClient;
  keys: StoreKeys;
  /** Whose stream to read: entries routed to this gateway. */
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
  /**
   * The stream's TTL, which the running feed keeps refreshing (every quarter of it) so that the
   * stream of a live gateway never expires: decide-hook does not refresh it on every append, and
   * gives it this TTL only when it has to create the stream. Use the stores' `decisionStreamTtlMs`.
   * @defaultValue `900000` (15 min, the stores' default)
   */
  streamTtlMs?: number;
}

/** Default of {@link GatewayFeedOptions.streamTtlMs}: the stores' default decision stream TTL. */
const DEFAULT_STREAM_TTL_MS = 15 * 60_000;

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

function parseDecision(fields: Record<string, unknown>): HookDecision {
  const raw = fields['decision'];
  if (typeof raw !== 'string') throw new Error('entry has no decision field');
  const parsed = HookDecisionSchema.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new Error(describeIssues(parsed.error.issues));
  return parsed.data;
}

function parseInboxNotice(fields: Record<string, unknown>): InboxNotice {
  const parsed = IdSchema.safeParse(fields['agent_id']);
  if (!parsed.success) throw new Error(`agent_id: ${describeIssues(parsed.error.issues)}`);
  return { agent_id: parsed.data };
}

/** A parsed entry, ready for its handler. */
interface Dispatch {
  call: () => void;
  /** Correlation fields for a log line about this entry. */
  logFields: Record<string, unknown>;
}

/**
 * The handler call for one entry, or undefined when its kind has no handler.
 * @throws Error when the entry does not parse or its kind is unknown.
 */
function prepare(kind: unknown, fields: Record<string, unknown>, handlers: GatewayFeedHandlers): Dispatch | undefined {
  const { onDecision, onInbox, onSignal } = handlers;
  switch (kind) {
    case 'decision': {
      if (onDecision === undefined) return undefined;
      const decision = parseDecision(fields);
      const traceparent = typeof fields['traceparent'] === 'string' ? fields['traceparent'] : undefined;
      // Routed with the trace context only; a value that is not a time is ignored (it only places a span).
      const decidedAt = typeof fields['decided_at'] === 'string' && /^[0-9]{1,15}$/.test(fields['decided_at']) ? Number(fields['decided_at']) : undefined;
      return { call: () => onDecision(decision, traceparent, decidedAt), logFields: { correlationId: decision.hook_id } };
    }
    case 'inbox': {
      if (onInbox === undefined) return undefined;
      const notice = parseInboxNotice(fields);
      return { call: () => onInbox(notice), logFields: { agentId: notice.agent_id } };
    }
    case 'signal': {
      if (onSignal === undefined) return undefined;
      const notice = parseInboxNotice(fields);
      return { call: () => onSignal(notice), logFields: { agentId: notice.agent_id } };
    }
    default:
      throw new Error(`unknown entry kind ${JSON.stringify(kind)}`);
  }
}

type FeedState = 'idle' | 'running' | 'stopped';

/**
 * Creates the GatewayFeed of one gateway. See {@link GatewayFeed} for the guarantee.
 *
 * - `start` opens a dedicated connection (`redis.duplicate()`), takes the stream's newest id as
 *   its starting point (what XREAD `$` means, but as a concrete id, so nothing routed between
 *   `start` resolving and the first XREAD is missed) and resolves; from then on every entry
 *   routed to this gateway is delivered, in stream order. After a connection error it waits
 *   (exponential, up to 2 s) and reads on from the last id it saw, so a Redis restart or network
 *   blip loses nothing that Redis kept.
 * - Entries of a kind without a handler are skipped unread. An entry that does not parse (a
 *   decision with HookDecisionSchema, a notice's `agent_id` with IdSchema, or an unknown `kind`)
 *   is logged and skipped. An exception from a handler is logged; the feed goes on.
 * - While it runs, the stream's TTL is refreshed every quarter of `streamTtlMs`, so the stream of
 *   a live gateway does not expire between decisions; once the gateway is gone, it expires.
 * - `stop` destroys the blocking connection (no wait for XREAD's timeout), waits for the loop to
 *   end, and is idempotent. A stopped feed cannot be started again; create a new one.
 *
 * @throws Error from `start` when called twice.
 */
export function createGatewayFeed(options: GatewayFeedOptions): GatewayFeed {
  const { redis, keys, gatewayId, logger } = options;
  const blockMs = options.blockMs ?? 5000;
  const batchSize = options.batchSize ?? 100;
  const streamTtlMs = options.streamTtlMs ?? DEFAULT_STREAM_TTL_MS;
  const stream = keys.gatewayDecisions(gatewayId);
  const connectionName = `${keys.prefix}:feed:${gatewayId}`;
  const abort = new AbortController();
  let state: FeedState = 'idle';
  let connection: RedisClient | undefined;
  let loop: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  let keepAlive: NodeJS.Timeout | undefined;

  /**
   * Pushes the stream's expiry a TTL ahead (on the shared client: the feed's own connection is
   * blocked in XREAD). A stream that does not exist yet is left alone: decide-hook creates it
   * with the TTL. A failure is logged; the next refresh, a quarter TTL later, tries again.
   */
  function refreshTtl(): void {
    redis.pExpire(stream, streamTtlMs).catch((error: unknown) => {
      if (state !== 'running') return;
      logger.warn({ gatewayId, stream, error: error instanceof Error ? error.message : String(error) }, 'refreshing the gateway feed stream TTL failed; retrying at the next refresh');
    });
  }

  /** Parses the entry for its handler and calls it; failures are logged. */
  function deliver(message: StreamMessage, handlers: GatewayFeedHandlers): void {
    const kind = message.fields['kind'] ?? 'decision';
    let dispatch: Dispatch | undefined;
    try {
      dispatch = prepare(kind, message.fields, handlers);
    } catch (error) {
      logger.error(
        { gatewayId, stream, entryId: message.id, error: error instanceof Error ? error.message : String(error) },
        'skipping a gateway feed entry that does not parse',
      );
      return;
    }
    if (dispatch === undefined) return;
    try {
      dispatch.call();
    } catch (error) {
      logger.error({ gatewayId, ...dispatch.logFields, error: error instanceof Error ? error.message : String(error) }, `${String(kind)} handler threw`);
    }
  }

  async function run(client: RedisClient, fromId: string, handlers: GatewayFeedHandlers): Promise<void> {
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
          'gateway feed read failed; retrying from the last entry seen',
        );
        await sleep(delay, undefined, { signal: abort.signal }).catch(() => undefined);
        continue;
      }
      for (const message of messagesOf(reply)) {
        lastId = message.id;
        deliver(message, handlers);
      }
    }
  }

  return {
    async start(handlers: GatewayFeedHandlers): Promise<void> {
      if (state !== 'idle') throw new Error(`feed of gateway ${gatewayId} was already started`);
      state = 'running';
      const client: RedisClient = redis.duplicate({ name: connectionName });
      attachLogging(client, connectionName, logger);
      connection = client;
      try {
        await client.connect();
        const newest = await client.xRevRange(stream, '+', '-', { COUNT: 1 });
        if (state !== 'running') return;
        loop = run(client, newest?.[0]?.id ?? '0-0', { ...handlers });
        refreshTtl();
        keepAlive = setInterval(refreshTtl, Math.max(1, Math.floor(streamTtlMs / 4)));
        keepAlive.unref();
        logger.info({ gatewayId, stream }, 'gateway feed started');
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
        clearInterval(keepAlive);
        abort.abort();
        if (connection?.isOpen) connection.destroy();
        await loop?.catch(() => undefined);
        if (wasRunning) logger.info({ gatewayId, stream }, 'gateway feed stopped');
      })();
      return stopping;
    },
  };
}

/** Where inbox notices go: the feed stream's bounds, as {@link createRedisStores} configures them. */
export interface InboxNotifyOptions {
  redis: RedisClient;
  keys: StoreKeys;
  /** Approximate length kept by each gateway feed stream (`XADD MAXLEN ~`). */
  feedMaxLen: number;
  /** A feed stream expires this long after its last entry. */
  feedTtlMs: number;
}

/**
 * Tells the gateway that holds `agentId` (per its presence entry) that the agent's inbox has new
 * messages. Call it after the messages are written: a notice is only a wake-up. Returns the
 * gateway notified, or `null` when the agent is not connected (its gateway reads the inbox when
 * it connects). If the agent moves to another gateway between the lookup and the append, the new
 * gateway reads the inbox on connect anyway, so nothing is missed.
 *
 * @throws StoreDataError when the presence entry names a gateway id that cannot be part of a key.
 */
export async function notifyInbox(options: InboxNotifyOptions, agentId: string, kind: 'inbox' | 'signal' = 'inbox'): Promise<string | null> {
  const { redis, keys } = options;
  const presenceKey = keys.presenceAgent(agentId);
  const gatewayId = await redis.hGet(presenceKey, 'gateway_id');
  if (gatewayId === null || gatewayId === undefined) return null;
  let stream: string;
  try {
    stream = keys.gatewayDecisions(gatewayId);
  } catch (error) {
    throw new StoreDataError(presenceKey, `gateway id ${JSON.stringify(gatewayId)} is not an id`, { field: 'gateway_id', cause: error });
  }
  await redis
    .multi()
    .xAdd(stream, '*', { kind, agent_id: agentId }, {
      TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: options.feedMaxLen },
    })
    .pExpire(stream, options.feedTtlMs)
    .exec();
  return gatewayId;
}
