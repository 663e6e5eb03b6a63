/**
 * Agent timelines: what each agent reported with `event` frames (control signals, plan progress,
 * verification results), kept per agent in a Redis stream for the console.
 *
 * Guarantees: `append` stores the event before it resolves (the gateway acknowledges the frame
 * only then); entries of one agent are ordered by arrival (stream ids); a timeline is bounded by
 * count (`XADD MAXLEN ~`) and expires `ttlMs` after the agent's last event. Duplicates are kept:
 * an SDK re-sending an event after a reconnect records it twice, which is harmless for an
 * observability log and cheaper than deduplicating every event.
 *
 * Key: `<prefix>:timeline:{<agentId>}` (hash-tagged by agent, so one agent's timeline is one
 * Cluster slot). It is built here rather than in `keys.ts` only because this file was added
 * alongside a concurrent change to `keys.ts`; it belongs in that table.
 */
import { AgentEventSchema, IdSchema, TeamActivityAttributionSchema, TimelineEntrySchema, redactFreeText, silentLogger, type AgentEvent, type Logger, type TeamActivityAttribution, type TimelineEntry } from '@ahp/protocol';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { reportUnreadableEntry } from './unreadable-entry.js';
import { describeIssues } from './validate.js';

/** Default of {@link TimelineStoreOptions.maxLen}. */
export const DEFAULT_TIMELINE_MAX_LEN = 10_000;
/** Default of {@link TimelineStoreOptions.ttlMs}: 7 days. */
export const DEFAULT_TIMELINE_TTL_MS = 7 * 24 * 3_600_000;

/** Options of {@link createTimelineStore}. */
export interface TimelineStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
  /**
   * Approximate number of events kept per agent.
   * @defaultValue {@link DEFAULT_TIMELINE_MAX_LEN} (10 000)
   */
  maxLen?: number;
  /**
   * A timeline is deleted this long after its agent's last event.
   * @defaultValue {@link DEFAULT_TIMELINE_TTL_MS} (7 days)
   */
  ttlMs?: number;
  /** Where `read` reports an entry it skipped because it does not parse (key and entry id). @defaultValue silent */
  logger?: Logger;
}

/** What {@link TimelineStore.append} records. */
export interface TimelineAppend {
  agentId: string;
  /** The session the agent reported it in, when known. */
  sessionId?: string;
  event: AgentEvent;
  /** Who sent a `team_activity` event and whether its names are verified: the gateway's, never the agent's. */
  attribution?: TeamActivityAttribution;
  now: number;
}

/** See the module comment for the guarantees. */
export interface TimelineStore {
  append(input: TimelineAppend): Promise<TimelineEntry>;
  /**
   * The newest `limit` events of an agent, newest first; empty for an agent without events. An
   * entry that does not parse is skipped and reported (its key and entry id), and older ones are
   * read in its place; it stays in the stream, which trims and expires it like any other entry.
   */
  read(agentId: string, limit: number): Promise<TimelineEntry[]>;
}

/** The stream of one agent's timeline. */
export function timelineKey(keys: StoreKeys, agentId: string): string {
  if (!IdSchema.safeParse(agentId).success) {
    throw new StoreInputError(`agent id ${JSON.stringify(agentId.slice(0, 140))} cannot be part of a key: 1-128 of letters, digits and . _ : -`);
  }
  return `${keys.prefix}:timeline:{${agentId}}`;
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new StoreInputError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** One stream entry as a timeline entry; StoreDataError naming the key and entry when it does not parse. */
function parseEntry(key: string, agentId: string, entryId: string, fields: Record<string, string>): TimelineEntry {
  const event = fields['event'] === undefined ? undefined : parseStoredJson(fields['event'], key, entryId);
  const attribution = fields['attribution'] === undefined ? undefined : parseStoredJson(fields['attribution'], key, entryId);
  return parseStored(
    TimelineEntrySchema,
    {
      id: entryId,
      agent_id: agentId,
      ...(fields['session_id'] === undefined ? {} : { session_id: fields['session_id'] }),
      recorded_at: fields['recorded_at'],
      event,
      ...(attribution === undefined ? {} : { attribution }),
    },
    key,
    entryId,
  );
}

/** Creates the Redis timeline store; it holds no state, so every gateway can create its own. */
export function createTimelineStore(options: TimelineStoreOptions): TimelineStore {
  const { redis, keys } = options;
  const maxLen = positive('maxLen', options.maxLen ?? DEFAULT_TIMELINE_MAX_LEN);
  const ttlMs = positive('ttlMs', options.ttlMs ?? DEFAULT_TIMELINE_TTL_MS);
  const logger = options.logger ?? silentLogger;

  return {
    async append(input: TimelineAppend): Promise<TimelineEntry> {
      const key = timelineKey(keys, input.agentId);
      const checked = AgentEventSchema.safeParse(input.event);
      if (!checked.success) throw new StoreInputError(`timeline event for ${input.agentId} is invalid: ${describeIssues(checked.error.issues)}`);
      const recordedAt = new Date(input.now).toISOString();
      // Every string of an event is free text the agent wrote: stored redacted (free-text.ts).
      // Parsed again after: redaction can make text longer, and an entry that does not parse would
      // fail every read of the timeline.
      const redacted = AgentEventSchema.safeParse(redactFreeText(checked.data));
      if (!redacted.success) throw new StoreInputError(`timeline event for ${input.agentId} is invalid once its credentials are redacted: ${describeIssues(redacted.error.issues)}`);
      const event = redacted.data;
      const fields: Record<string, string> = { recorded_at: recordedAt, event: JSON.stringify(event) };
      if (input.sessionId !== undefined) fields['session_id'] = input.sessionId;
      let attribution: TeamActivityAttribution | undefined;
      if (input.attribution !== undefined) {
        const parsed = TeamActivityAttributionSchema.safeParse(input.attribution);
        if (!parsed.success) throw new StoreInputError(`timeline attribution for ${input.agentId} is invalid: ${describeIssues(parsed.error.issues)}`);
        attribution = parsed.data;
        fields['attribution'] = JSON.stringify(attribution);
      }
      const [id] = (await redis
        .multi()
        .xAdd(key, '*', fields, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: maxLen } })
        .pExpire(key, ttlMs)
        .exec()) as [unknown, unknown];
      if (typeof id !== 'string') throw new StoreInputError(`XADD to ${key} returned no entry id`);
      return {
        id,
        agent_id: input.agentId,
        ...(input.sessionId === undefined ? {} : { session_id: input.sessionId }),
        recorded_at: recordedAt,
        event,
        ...(attribution === undefined ? {} : { attribution }),
      };
    },

    async read(agentId: string, limit: number): Promise<TimelineEntry[]> {
      const key = timelineKey(keys, agentId);
      positive('limit', limit);
      const found: TimelineEntry[] = [];
      let before: string | undefined;
      // Reads on past skipped entries, so `limit` events come back while the timeline has them.
      for (;;) {
        const wanted = limit - found.length;
        const entries = (await redis.xRevRange(key, before === undefined ? '+' : `(${before}`, '-', { COUNT: wanted })) ?? [];
        for (const entry of entries) {
          before = entry.id;
          try {
            found.push(parseEntry(key, agentId, entry.id, entry.message as Record<string, string>));
          } catch (error) {
            if (!(error instanceof StoreDataError)) throw error;
            reportUnreadableEntry(logger, error, { key, entry: entry.id, agentId, during: 'timeline read', outcome: 'left' });
          }
        }
        if (entries.length < wanted || found.length === limit) return found;
      }
    },
  };
}
