/**
 * The fleet: one row per agent the control plane has seen — who it is, where it is connected,
 * what it last did — kept after it disconnects (as `offline`) until it has not been seen for the
 * retention period. Gateways write the rows of the agents they hold; operators read them.
 *
 * Guarantees:
 * - A row is merged field by field (fleet-update script), so what one gateway reports never
 *   erases what another reported (an agent's last hook survives its move to another gateway).
 * - `activityBatch` writes many rows in one script call on a single Redis (the rows returned are
 *   the merge the script applied to the row it read, not a second read); under Cluster one call
 *   per row, sent together, then one index update.
 * - Only the gateway that holds the agent's current connection can mark it offline or set its
 *   in-flight count (see the script's header).
 * - `list` crosses the rows with presence: a row still marked connected whose gateway died
 *   without saying goodbye shows `offline` once its presence entry expired.
 * - Rows are validated before they are written (StoreInputError) and parsed when read back
 *   (StoreDataError naming the key).
 */
import {
  AgentIdentitySchema,
  FleetAgentSchema,
  FleetClientSchema,
  FleetLastDecisionSchema,
  FleetLastRefusalSchema,
  FleetLastHookSchema,
  OperatorLiveEventSchema,
  fleetStatus,
  type AgentIdentity,
  type FleetAgent,
  type FleetClient,
  type FleetLastDecision,
  type FleetLastRefusal,
  type FleetLastHook,
  type OperatorLiveEvent,
  type PresenceEntry,
} from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply, pairsToRecord, parseStored, parseStoredJson } from './lua.js';
import { isClusterClient, type RedisClient } from './redis-client.js';
import { FLEET_UPDATE_CORE_LUA, FLEET_UPDATE_LUA } from './scripts/fleet-update.lua.js';
import { describeIssues } from './validate.js';

const fleetUpdate = new LuaScript('fleet-update', FLEET_UPDATE_LUA);
const fleetUpdateCore = new LuaScript('fleet-update-core', FLEET_UPDATE_CORE_LUA);

/** Default of {@link FleetStoreOptions.retentionMs}: 7 days. */
export const DEFAULT_FLEET_RETENTION_MS = 7 * 24 * 3_600_000;
/** Default of {@link FleetStoreOptions.liveMaxLen}. */
export const DEFAULT_LIVE_MAX_LEN = 10_000;
/**
 * The most rows `list` returns (the most recently seen first): the fleet view holds 20,000 agents
 * with room to spare, while one read stays bounded (the gateway pages and filters it for operators).
 */
export const MAX_FLEET_ROWS = 25_000;

/**
 * Rows one fleet-update call writes at most: a larger batch is split, so that one script (three
 * commands per row) never holds Redis for more than a fraction of a millisecond.
 */
const ROWS_PER_CALL = 256;

/** Options of {@link createFleetStore}. */
export interface FleetStoreOptions {
  redis: RedisClient;
  keys: StoreKeys;
  /**
   * A row is dropped this long after its agent was last seen.
   * @defaultValue {@link DEFAULT_FLEET_RETENTION_MS}
   */
  retentionMs?: number;
  /**
   * Approximate number of live events kept in the live stream.
   * @defaultValue {@link DEFAULT_LIVE_MAX_LEN}
   */
  liveMaxLen?: number;
}

/** What a gateway reports about an agent it holds. */
export interface FleetActivity {
  agentId: string;
  gatewayId: string;
  now: number;
  lastHook?: FleetLastHook;
  lastDecision?: FleetLastDecision;
  lastRefusal?: FleetLastRefusal;
  hooksInFlight?: number;
}

/** See the module comment for the guarantees. */
export interface FleetStore {
  /** The agent connected to `gatewayId` (`client`: how, when not over the WebSocket); returns its row as it is now. */
  connect(input: { agent: AgentIdentity; gatewayId: string; sessionId: string; connectedAt: number; now: number; client?: FleetClient }): Promise<FleetAgent>;
  /** Records activity; null when the agent has no row (it was never connected, or its row expired). */
  activity(input: FleetActivity): Promise<FleetAgent | null>;
  /**
   * {@link FleetStore.activity} of many agents reported by one gateway (`gatewayId` replaces each
   * input's own), in one round trip on a single Redis: the rows in input order, null for an agent
   * without a row. Invalid input fails the whole call before anything is written (StoreInputError).
   */
  activityBatch(gatewayId: string, inputs: readonly Omit<FleetActivity, 'gatewayId'>[]): Promise<(FleetAgent | null)[]>;
  /** The agent's connection to `gatewayId` closed; returns its row, or null when it has none. */
  disconnect(input: { agentId: string; gatewayId: string; now: number }): Promise<FleetAgent | null>;
  /** Every row seen within the retention period (at most {@link MAX_FLEET_ROWS}, most recently seen first), sorted by agent id, with status from `presence`. */
  list(now: number, presence: readonly PresenceEntry[]): Promise<FleetAgent[]>;
  /**
   * A reader that keeps what it read: each {@link FleetReader.read} fetches only the rows written
   * since (see {@link FleetReader}). For a process that lists the fleet again and again.
   */
  reader(): FleetReader;
  /** Appends events to the live stream that every gateway's live feed tails. */
  publishLive(events: readonly OperatorLiveEvent[]): Promise<void>;
}

/**
 * Lists the fleet again and again at the cost of what changed: the index's score of a row is the
 * time of its last write (every fleet-update ZADDs it), so a read takes the whole index (ids and
 * scores: one ZRANGE) and fetches and parses only the rows whose score moved, plus those written
 * within {@link FLEET_READ_RECENT_MS} of the previous read (a second write in the same
 * millisecond, or from a gateway whose clock runs a little behind, leaves the score where it
 * was), and every row again once {@link FLEET_READ_FULL_EVERY_MS} has passed since the last full
 * read. Measured at 20,000 agents on the shared two-core machine: a full read 1–3.5 s of
 * round trips and ~240 ms of parsing; a read with nothing changed, the ZRANGE and the status of
 * each row at `now`. Status and presence are applied at every read (they change with time, not
 * with writes).
 */
export interface FleetReader {
  /** Every row seen within the retention period, as {@link FleetStore.list} returns them. */
  read(now: number, presence: readonly PresenceEntry[]): Promise<FleetAgent[]>;
}

/** Rows whose index score is this close to the previous read (or later) are fetched again. */
export const FLEET_READ_RECENT_MS = 5_000;
/** A reader fetches every row again after this long, whatever the scores say. */
export const FLEET_READ_FULL_EVERY_MS = 60_000;

function createFleetReader(redis: RedisClient, keys: StoreKeys, retentionMs: number): FleetReader {
  const known = new Map<string, { score: number; stored: StoredFleetRow }>();
  let previousRead: number | undefined;
  let lastFullRead = -Infinity;
  return {
    async read(now, presence) {
      const [, index] = await redis
        .multi()
        .zRemRangeByScore(keys.fleetAgents, '-inf', now - retentionMs)
        .zRangeWithScores(keys.fleetAgents, '+inf', '-inf', { BY: 'SCORE', REV: true, LIMIT: { offset: 0, count: MAX_FLEET_ROWS } })
        .exec();
      if (!Array.isArray(index)) return [];
      const full = now - lastFullRead >= FLEET_READ_FULL_EVERY_MS;
      const recentFrom = previousRead === undefined ? -Infinity : previousRead - FLEET_READ_RECENT_MS;
      const scores = new Map<string, number>();
      for (const item of index as unknown[]) {
        const { value, score } = (item ?? {}) as { value?: unknown; score?: unknown };
        if (typeof value === 'string' && typeof score === 'number') scores.set(value, score);
      }
      for (const id of known.keys()) if (!scores.has(id)) known.delete(id);
      const stale = [...scores].filter(([id, score]) => {
        const cached = known.get(id);
        return full || cached === undefined || cached.score !== score || score >= recentFrom;
      });
      await Promise.all(
        stale.map(async ([id, score]) => {
          const key = keys.fleetAgent(id);
          const row = await redis.hGetAll(key);
          if (row['agent'] === undefined) known.delete(id);
          else known.set(id, { score, stored: storedFleetRow(row, key) });
        }),
      );
      previousRead = now;
      if (full) lastFullRead = now;
      const present = new Map(presence.map((entry) => [entry.agent.id, entry]));
      const rows: FleetAgent[] = [];
      for (const [id, { stored }] of known) rows.push(fleetAgentFromStored(stored, now, present.get(id) ?? null));
      return rows.sort((a, b) => (a.agent.id < b.agent.id ? -1 : a.agent.id > b.agent.id ? 1 : 0));
    },
  };
}

/** Creates the Redis fleet store. */
export function createFleetStore(options: FleetStoreOptions): FleetStore {
  const { redis, keys } = options;
  const retentionMs = options.retentionMs ?? DEFAULT_FLEET_RETENTION_MS;
  const liveMaxLen = options.liveMaxLen ?? DEFAULT_LIVE_MAX_LEN;

  /** What one row of a fleet-update call sends after the gateway id and the retention. */
  interface RowUpdate {
    agentId: string;
    mode: 'connect' | 'activity' | 'disconnect';
    now: number;
    pairs: string[];
  }

  function rowArgs({ agentId, mode, now, pairs }: RowUpdate): (string | number)[] {
    return [agentId, mode, now, pairs.length, ...pairs];
  }

  function rowOf(reply: unknown, key: string, now: number): FleetAgent | null {
    const row = pairsToRecord(reply, key, 'fleet-update');
    return row['agent'] === undefined ? null : rowToFleetAgent(row, key, now, undefined);
  }

  /** A single Redis: every row and the index in one script call per {@link ROWS_PER_CALL} rows. */
  async function updateOneStep(gatewayId: string, updates: readonly RowUpdate[]): Promise<(FleetAgent | null)[]> {
    const calls: Promise<(FleetAgent | null)[]>[] = [];
    for (let start = 0; start < updates.length; start += ROWS_PER_CALL) {
      const chunk = updates.slice(start, start + ROWS_PER_CALL);
      const rowKeys = chunk.map(({ agentId }) => keys.fleetAgent(agentId));
      calls.push(
        fleetUpdate.run(redis, [keys.fleetAgents, ...rowKeys], [gatewayId, retentionMs, ...chunk.flatMap(rowArgs)]).then((reply) => {
          const rows = arrayReply(reply, keys.fleetAgents, 'fleet-update');
          if (rows.length !== chunk.length) throw badReply(keys.fleetAgents, 'fleet-update', reply);
          return rows.map((row, i) => rowOf(row, rowKeys[i] ?? '', chunk[i]?.now ?? 0));
        }),
      );
    }
    return (await Promise.all(calls)).flat();
  }

  /**
   * Redis Cluster: the rows have their own tags, so one fleet-update-core per row (sent together),
   * then the index: one ZADD of the kept rows, one ZREM of the deleted ones.
   */
  async function updateSplit(gatewayId: string, updates: readonly RowUpdate[]): Promise<(FleetAgent | null)[]> {
    const replies = await Promise.all(
      updates.map(async (update) => {
        const key = keys.fleetAgent(update.agentId);
        const reply = arrayReply(await fleetUpdateCore.run(redis, [key], [gatewayId, retentionMs, ...rowArgs(update)]), key, 'fleet-update-core');
        if (reply.length !== 1) throw badReply(key, 'fleet-update-core', reply);
        return { update, key, row: pairsToRecord(reply[0], key, 'fleet-update-core') };
      }),
    );
    const kept = replies.filter(({ row }) => row['agent'] !== undefined).map(({ update }) => ({ score: update.now, value: update.agentId }));
    const gone = replies.filter(({ row }) => row['agent'] === undefined).map(({ update }) => update.agentId);
    for (let start = 0; start < kept.length; start += ROWS_PER_CALL) await redis.zAdd(keys.fleetAgents, kept.slice(start, start + ROWS_PER_CALL));
    for (let start = 0; start < gone.length; start += ROWS_PER_CALL) await redis.zRem(keys.fleetAgents, gone.slice(start, start + ROWS_PER_CALL));
    return replies.map(({ update, key, row }) => (row['agent'] === undefined ? null : rowToFleetAgent(row, key, update.now, undefined)));
  }

  function update(gatewayId: string, updates: readonly RowUpdate[]): Promise<(FleetAgent | null)[]> {
    if (updates.length === 0) return Promise.resolve([]);
    return isClusterClient(redis) ? updateSplit(gatewayId, updates) : updateOneStep(gatewayId, updates);
  }

  function activityUpdate({ agentId, now, lastHook, lastDecision, lastRefusal, hooksInFlight }: Omit<FleetActivity, 'gatewayId'>): RowUpdate {
    const pairs = ['last_seen_at', new Date(now).toISOString()];
    if (lastHook !== undefined) pairs.push('last_hook', JSON.stringify(checked(FleetLastHookSchema, lastHook, 'last hook')));
    if (lastDecision !== undefined) pairs.push('last_decision', JSON.stringify(checked(FleetLastDecisionSchema, lastDecision, 'last decision')));
    if (lastRefusal !== undefined) pairs.push('last_refusal', JSON.stringify(checked(FleetLastRefusalSchema, lastRefusal, 'last refusal')));
    if (hooksInFlight !== undefined) pairs.push('hooks_in_flight', String(Math.max(0, Math.trunc(hooksInFlight))));
    return { agentId, mode: 'activity', now, pairs };
  }

  return {
    async connect({ agent, gatewayId, sessionId, connectedAt, now, client }) {
      const identity = checked(AgentIdentitySchema, agent, 'agent');
      const at = new Date(now).toISOString();
      const pairs = [
        'agent', JSON.stringify(identity),
        'session_id', sessionId,
        'connected_at', new Date(connectedAt).toISOString(),
        'last_seen_at', at,
        'hooks_in_flight', '0',
        // '' clears it: an agent id that moved from Claude Code to the WebSocket is an SDK agent again.
        'client', client === undefined ? '' : checked(FleetClientSchema, client, 'client'),
      ];
      const [row] = await update(gatewayId, [{ agentId: identity.id, mode: 'connect', now, pairs }]);
      if (row === null || row === undefined) throw new StoreInputError(`fleet row of ${identity.id} vanished while it was written`);
      return row;
    },

    async activity(input) {
      const [row] = await update(input.gatewayId, [activityUpdate(input)]);
      return row ?? null;
    },

    async activityBatch(gatewayId, inputs) {
      return update(gatewayId, inputs.map(activityUpdate));
    },

    async disconnect({ agentId, gatewayId, now }) {
      const [row] = await update(gatewayId, [{ agentId, mode: 'disconnect', now, pairs: ['last_seen_at', new Date(now).toISOString()] }]);
      return row ?? null;
    },

    list(now, presence) {
      return createFleetReader(redis, keys, retentionMs).read(now, presence);
    },

    reader() {
      return createFleetReader(redis, keys, retentionMs);
    },

    async publishLive(events) {
      if (events.length === 0) return;
      await Promise.all(
        events.map((event) =>
          redis.xAdd(keys.liveEvents, '*', { event: JSON.stringify(checked(OperatorLiveEventSchema, event, 'live event')) }, {
            TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: liveMaxLen },
          }),
        ),
      );
    },
  };
}

/**
 * A stored row parsed once: everything that does not depend on the time of reading or on
 * presence. {@link fleetAgentFromStored} turns it into the row an operator sees at a given
 * moment without parsing again (the fleet reader keeps these between reads).
 */
export interface StoredFleetRow {
  agent: AgentIdentity;
  client?: FleetClient;
  /** The row's own connected flag (`connected` = '1'), before presence is consulted. */
  flagged: boolean;
  gatewayId?: string;
  sessionId?: string;
  connectedAt?: string;
  lastSeenAt?: string;
  lastHook?: FleetLastHook;
  lastDecision?: FleetLastDecision;
  lastRefusal?: FleetLastRefusal;
  hooksInFlight: number;
}

/** The plain fields of a row, checked with the same rules as the row an operator gets. */
const StoredPlainFieldsSchema = FleetAgentSchema.pick({ gateway_id: true, session_id: true, connected_at: true, client: true })
  .extend({ last_seen_at: FleetAgentSchema.shape.last_seen_at.optional() });

/**
 * Parses a stored row (the hash's fields).
 * @throws StoreDataError naming the key and field when a field does not parse.
 */
export function storedFleetRow(row: Record<string, string>, key: string): StoredFleetRow {
  const agent = parseStored(AgentIdentitySchema, parseStoredJson(row['agent'] ?? '', key, 'agent'), key, 'agent');
  const lastHook = row['last_hook'] === undefined ? undefined : parseStored(FleetLastHookSchema, parseStoredJson(row['last_hook'], key, 'last_hook'), key, 'last_hook');
  const lastDecision =
    row['last_decision'] === undefined ? undefined : parseStored(FleetLastDecisionSchema, parseStoredJson(row['last_decision'], key, 'last_decision'), key, 'last_decision');
  const lastRefusal =
    row['last_refusal'] === undefined ? undefined : parseStored(FleetLastRefusalSchema, parseStoredJson(row['last_refusal'], key, 'last_refusal'), key, 'last_refusal');
  const plain = parseStored(
    StoredPlainFieldsSchema,
    {
      gateway_id: row['gateway_id'],
      session_id: row['session_id'],
      connected_at: row['connected_at'],
      last_seen_at: row['last_seen_at'],
      // '' clears it (see connect).
      client: row['client'] === '' ? undefined : row['client'],
    },
    key,
  );
  return {
    agent,
    ...(plain.client === undefined ? {} : { client: plain.client }),
    flagged: row['connected'] === '1',
    ...(plain.gateway_id === undefined ? {} : { gatewayId: plain.gateway_id }),
    ...(plain.session_id === undefined ? {} : { sessionId: plain.session_id }),
    ...(plain.connected_at === undefined ? {} : { connectedAt: plain.connected_at }),
    ...(plain.last_seen_at === undefined ? {} : { lastSeenAt: plain.last_seen_at }),
    ...(lastHook === undefined ? {} : { lastHook }),
    ...(lastDecision === undefined ? {} : { lastDecision }),
    ...(lastRefusal === undefined ? {} : { lastRefusal }),
    hooksInFlight: Math.max(0, Math.trunc(Number(row['hooks_in_flight'] ?? '0') || 0)),
  };
}

/**
 * A parsed row as a {@link FleetAgent} at `now`. `presence` is the agent's presence entry when
 * the caller looked it up (null: not connected anywhere), undefined when the caller trusts the
 * row's own connected flag (a gateway that has just written it). No parsing: the parts were
 * checked by {@link storedFleetRow} and presence entries by the presence store.
 */
export function fleetAgentFromStored(stored: StoredFleetRow, now: number, presence: PresenceEntry | null | undefined): FleetAgent {
  // The row's gateway must still be the one presence names: otherwise it died or the agent moved.
  const connected = presence === undefined ? stored.flagged : presence !== null && stored.flagged && presence.gateway_id === stored.gatewayId;
  const hooksInFlight = connected ? stored.hooksInFlight : 0;
  const connectedAt = connected ? (stored.connectedAt ?? presence?.connected_at) : undefined;
  const { lastHook, lastDecision, lastRefusal } = stored;
  return {
    agent: stored.agent,
    ...(stored.client === undefined ? {} : { client: stored.client }),
    status: fleetStatus(
      {
        connected,
        hooks_in_flight: hooksInFlight,
        last_hook_at_ms: lastHook === undefined ? undefined : Date.parse(lastHook.at),
        last_hook_trigger: lastHook?.trigger,
        connected_at_ms: connectedAt === undefined ? undefined : Date.parse(connectedAt),
      },
      now,
    ),
    ...(connected && stored.gatewayId !== undefined ? { gateway_id: stored.gatewayId } : {}),
    ...(connected && stored.sessionId !== undefined ? { session_id: stored.sessionId } : {}),
    ...(connectedAt === undefined ? {} : { connected_at: connectedAt }),
    last_seen_at: latest(stored.lastSeenAt, presence?.last_activity_at) ?? new Date(now).toISOString(),
    ...(lastHook === undefined ? {} : { last_hook: lastHook }),
    ...(lastDecision === undefined ? {} : { last_decision: lastDecision }),
    ...(lastRefusal === undefined ? {} : { last_refusal: lastRefusal }),
    hooks_in_flight: hooksInFlight,
  };
}

/** A stored row as a {@link FleetAgent}: {@link storedFleetRow} then {@link fleetAgentFromStored}. */
export function rowToFleetAgent(row: Record<string, string>, key: string, now: number, presence: PresenceEntry | null | undefined): FleetAgent {
  return fleetAgentFromStored(storedFleetRow(row, key), now, presence);
}

function latest(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

interface SafeParser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

function checked<T>(schema: SafeParser<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new StoreInputError(`invalid ${what}: ${describeIssues(result.error.issues)}`);
  return result.data;
}
