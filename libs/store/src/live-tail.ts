/**
 * Tails what operators watch live — the live stream gateways write (fleet rows, timeline
 * entries), the request audit stream and the signal log — and turns each entry into an
 * {@link OperatorLiveEvent}.
 *
 * Guarantee: while it runs, every entry appended after `start` is delivered once, in stream
 * order per stream, across Redis reconnects (each stream is read on from the last id seen).
 * Nothing before `start` is replayed: live events are hints on top of snapshots (see the
 * protocol's fleet module), and a consumer re-reads its snapshots whenever it (re)subscribes.
 * An entry that does not parse is logged and skipped; it never stops the tail.
 *
 * On a single Redis one blocking XREAD reads the three streams. On a Redis Cluster an XREAD may
 * only name keys of one slot, and the three streams hash to different ones: each stream is then
 * read by its own XREAD on its own connection (a blocked XREAD holds its connection, so two on one
 * connection would wait for each other).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { OperatorLiveEventSchema, type OperatorLiveEvent } from '@ahp/protocol';
import type { Logger } from '@ahp/protocol';
import type { StoreKeys } from './keys.js';
import { attachLogging, isClusterClient, reconnectDelay, type RedisClient } from './redis-client.js';
import { requestEventFromFields } from './request-events.js';
import { describeIssues } from './validate.js';

/** Options of {@link createLiveTail}. */
export interface LiveTailOptions {
  /** The process's client; the tail blocks on its own `duplicate()`. */
  redis: RedisClient;
  keys: StoreKeys;
  logger: Logger;
  /**
   * How long one XREAD blocks before it is issued again.
   * @defaultValue `5000`
   */
  blockMs?: number;
}

/** A running tail. */
export interface LiveTail {
  /** Starts reading; `onEvents` is called with the events of each read, in order. Once only. */
  start(onEvents: (events: OperatorLiveEvent[]) => void): Promise<void>;
  /** Stops for good (a stopped tail does not start again). */
  stop(): Promise<void>;
}

interface Entry {
  stream: string;
  id: string;
  fields: Record<string, string>;
}

/** node-redis's XREAD reply (`[{ name, messages: [{ id, message }] }]`) as flat entries. */
function entriesOf(reply: unknown): Entry[] {
  if (!Array.isArray(reply)) return [];
  const out: Entry[] = [];
  for (const stream of reply as { name?: unknown; messages?: unknown }[]) {
    if (typeof stream?.name !== 'string' || !Array.isArray(stream.messages)) continue;
    for (const message of stream.messages as { id?: unknown; message?: unknown }[]) {
      if (typeof message?.id !== 'string' || typeof message.message !== 'object' || message.message === null) continue;
      out.push({ stream: stream.name, id: message.id, fields: message.message as Record<string, string> });
    }
  }
  return out;
}

/** Creates the tail; it reads nothing until {@link LiveTail.start}. */
export function createLiveTail(options: LiveTailOptions): LiveTail {
  const { redis, keys, logger } = options;
  let onEvents: (events: OperatorLiveEvent[]) => void = () => undefined;
  const blockMs = options.blockMs ?? 5000;
  const streams = [keys.liveEvents, keys.requestEvents, keys.signalLog];
  /** The streams each XREAD names: all of them on one Redis, one each on a cluster (one slot per XREAD). */
  const readGroups = isClusterClient(redis) ? streams.map((stream) => [stream]) : [streams];
  const abort = new AbortController();
  let running = false;
  let connections: RedisClient[] = [];
  let loops: Promise<void>[] = [];

  /** The events one entry stands for (signal entries are merged per read by the caller). */
  function convert(entry: Entry): OperatorLiveEvent | { agentId: string; at: string } | undefined {
    if (entry.stream === keys.liveEvents) {
      const raw = entry.fields['event'];
      const parsed = OperatorLiveEventSchema.safeParse(raw === undefined ? undefined : JSON.parse(raw));
      if (!parsed.success) throw new Error(describeIssues(parsed.error.issues));
      return parsed.data;
    }
    if (entry.stream === keys.requestEvents) {
      const record = requestEventFromFields(entry.id, entry.fields, entry.stream);
      return {
        kind: 'request',
        request_id: record.requestId,
        type: record.type,
        event: record.event,
        status: record.status,
        actor: record.actor,
        at: record.at,
        ...(record.state === undefined ? {} : { sender: record.state.sender }),
      };
    }
    const agentId = entry.fields['agent_id'];
    return agentId === undefined || agentId === '' ? undefined : { agentId, at: entry.fields['timestamp'] ?? new Date().toISOString() };
  }

  function deliver(entries: Entry[]): void {
    const events: OperatorLiveEvent[] = [];
    const signalAgents = new Set<string>();
    let signalsAt = '';
    for (const entry of entries) {
      let converted: ReturnType<typeof convert>;
      try {
        converted = convert(entry);
      } catch (error) {
        logger.error({ stream: entry.stream, entryId: entry.id, error: error instanceof Error ? error.message : String(error) }, 'skipping a live entry that does not parse');
        continue;
      }
      if (converted === undefined) continue;
      if ('kind' in converted) events.push(converted);
      else {
        signalAgents.add(converted.agentId);
        signalsAt = converted.at;
      }
    }
    // One `signals` hint per read: a burst of signals costs the console one re-read, not one per line.
    if (signalAgents.size > 0) events.push({ kind: 'signals', agent_ids: [...signalAgents].slice(0, 500), at: signalsAt });
    if (events.length === 0) return;
    try {
      onEvents(events);
    } catch (error) {
      logger.error({ error: error instanceof Error ? error.message : String(error) }, 'live event handler threw');
    }
  }

  /** The last id of each stream now ("0-0" for an empty or missing one): reading starts after it. */
  async function currentIds(client: RedisClient, group: readonly string[]): Promise<string[]> {
    return Promise.all(
      group.map(async (stream) => {
        const last = await client.xRevRange(stream, '+', '-', { COUNT: 1 });
        return last?.[0]?.id ?? '0-0';
      }),
    );
  }

  async function run(client: RedisClient, group: readonly string[], fromIds: string[]): Promise<void> {
    const lastIds = [...fromIds];
    let failures = 0;
    while (running) {
      let reply: unknown;
      try {
        reply = await client.xRead(
          group.map((key, i) => ({ key, id: lastIds[i] as string })),
          { BLOCK: blockMs, COUNT: 500 },
        );
        failures = 0;
      } catch (error) {
        if (!running) return;
        const delayMs = reconnectDelay(failures++, 50, 2000);
        logger.warn({ delayMs, error: error instanceof Error ? error.message : String(error) }, 'live tail read failed; retrying from the last entries seen');
        await sleep(delayMs, undefined, { signal: abort.signal }).catch(() => undefined);
        continue;
      }
      const entries = entriesOf(reply);
      for (const entry of entries) {
        const index = group.indexOf(entry.stream);
        if (index >= 0) lastIds[index] = entry.id;
      }
      deliver(entries);
    }
  }

  return {
    async start(handler) {
      if (running || abort.signal.aborted) return;
      running = true;
      onEvents = handler;
      // Every group's start ids are read before any loop runs, so nothing appended after start is missed.
      const started = await Promise.all(
        readGroups.map(async (group) => {
          const connection = redis.duplicate();
          connections.push(connection);
          attachLogging(connection, `${keys.prefix}:live-tail`, logger);
          await connection.connect();
          return { connection, group, ids: await currentIds(connection, group) };
        }),
      );
      loops = started.map(({ connection, group, ids }) => run(connection, group, ids));
    },

    async stop() {
      if (!running) return;
      running = false;
      abort.abort();
      // A blocked XREAD only returns when its connection goes away.
      for (const connection of connections) if (connection.isOpen) connection.destroy();
      await Promise.all(loops.map((loop) => loop.catch(() => undefined)));
      connections = [];
      loops = [];
    },
  };
}
