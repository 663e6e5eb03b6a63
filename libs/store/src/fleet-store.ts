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
  /** Appends events to the live stream that every gateway's live feed tails. */
  publishLive(events: readonly OperatorLiveEvent[]): Promise<void>;
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

    async list(now, presence) {
      const [, ids] = await redis
        .multi()
        .zRemRangeByScore(keys.fleetAgents, '-inf', now - retentionMs)
        .zRange(keys.fleetAgents, '+inf', '-inf', { BY: 'SCORE', REV: true, LIMIT: { offset: 0, count: MAX_FLEET_ROWS } })
        .exec();
      if (!Array.isArray(ids)) return [];
      const present = new Map(presence.map((entry) => [entry.agent.id, entry]));
      const rows = await Promise.all(
        (ids as unknown[]).filter((id): id is string => typeof id === 'string').map(async (id) => {
          const key = keys.fleetAgent(id);
          const row = await redis.hGetAll(key);
          return row['agent'] === undefined ? null : rowToFleetAgent(row, key, now, present.get(id) ?? null);
        }),
      );
      return rows.filter((row): row is FleetAgent => row !== null).sort((a, b) => (a.agent.id < b.agent.id ? -1 : a.agent.id > b.agent.id ? 1 : 0));
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
 * A stored row as a {@link FleetAgent}. `presence` is the agent's presence entry when the caller
 * looked it up (null: not connected anywhere), undefined when the caller trusts the row's own
 * connected flag (a gateway that has just written it).
 */
export function rowToFleetAgent(row: Record<string, string>, key: string, now: number, presence: PresenceEntry | null | undefined): FleetAgent {
  const agent = parseStored(AgentIdentitySchema, parseStoredJson(row['agent'] ?? '', key, 'agent'), key, 'agent');
  const lastHook = row['last_hook'] === undefined ? undefined : parseStored(FleetLastHookSchema, parseStoredJson(row['last_hook'], key, 'last_hook'), key, 'last_hook');
  const lastDecision =
    row['last_decision'] === undefined ? undefined : parseStored(FleetLastDecisionSchema, parseStoredJson(row['last_decision'], key, 'last_decision'), key, 'last_decision');
  const lastRefusal =
    row['last_refusal'] === undefined ? undefined : parseStored(FleetLastRefusalSchema, parseStoredJson(row['last_refusal'], key, 'last_refusal'), key, 'last_refusal');
  const flagged = row['connected'] === '1';
  // The row's gateway must still be the one presence names: otherwise it died or the agent moved.
  const connected = presence === undefined ? flagged : presence !== null && flagged && presence.gateway_id === row['gateway_id'];
  const hooksInFlight = connected ? Number(row['hooks_in_flight'] ?? '0') || 0 : 0;
  const connectedAt = connected ? (row['connected_at'] ?? presence?.connected_at) : undefined;
  const client = row['client'];
  const candidate = {
    agent,
    ...(client === undefined || client === '' ? {} : { client }),
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
    ...(connected && row['gateway_id'] !== undefined ? { gateway_id: row['gateway_id'] } : {}),
    ...(connected && row['session_id'] !== undefined ? { session_id: row['session_id'] } : {}),
    ...(connectedAt === undefined ? {} : { connected_at: connectedAt }),
    last_seen_at: latest(row['last_seen_at'], presence?.last_activity_at) ?? new Date(now).toISOString(),
    ...(lastHook === undefined ? {} : { last_hook: lastHook }),
    ...(lastDecision === undefined ? {} : { last_decision: lastDecision }),
    ...(lastRefusal === undefined ? {} : { last_refusal: lastRefusal }),
    hooks_in_flight: hooksInFlight,
  };
  return parseStored(FleetAgentSchema, candidate, key);
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
