/**
 * A request as the store keeps it (state, revision, the teams and incarnation fixed at creation),
 * the parsers of what is read back, and the checks of what callers pass in. Shared by the parts
 * of the request store (see `request-store.ts`).
 */
import { IdSchema, PresenceEntrySchema, ProtocolStateSchema, type Logger, type ProtocolState, type RequestActor } from '@ahp/protocol';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { isRequestActor } from './request-events.js';

/** Largest `limit` of `list` and `expireDue`. */
export const MAX_LIMIT = 1000;

/** Where a team is looked up for the `team` index and filter. */
export type TeamResolver = (agentId: string) => string | undefined | Promise<string | undefined>;

/** A request as stored: state, revision and what was fixed at creation. */
export interface StoredRequest {
  state: ProtocolState;
  rev: string;
  teams: string[];
  incarnation: string;
}

/** A team resolver reading the agent's presence entry: the identity it connected with. Unknown (offline) agents have no team. */
export function teamFromPresence(redis: RedisClient, keys: StoreKeys): TeamResolver {
  return async (agentId) => {
    const key = keys.presenceAgent(agentId);
    const raw = await redis.hGet(key, 'entry');
    if (raw === null || raw === undefined) return undefined;
    return parseStored(PresenceEntrySchema, parseStoredJson(raw, key, 'entry'), key, 'entry').agent.team;
  };
}

/**
 * The teams recorded with a request when it was created (its sender's first, then an agent
 * target's); `null` when the request is not stored (any more).
 */
export async function readRequestTeams(redis: RedisClient, keys: StoreKeys, requestId: string): Promise<string[] | null> {
  const key = keys.request(requestId);
  const raw = await redis.hGet(key, 'teams');
  if (raw === null || raw === undefined) return null;
  return parseStored(TeamsParser, parseStoredJson(raw, key, 'teams'), key, 'teams');
}

/** `actor`, when it is one; else a StoreInputError. */
export function checkActor(actor: RequestActor): RequestActor {
  if (!isRequestActor(actor)) throw new StoreInputError(`invalid actor ${JSON.stringify(actor)}: { kind: agent | operator | system, id }`);
  return actor;
}

/** `limit`, when it is an integer from 1 to {@link MAX_LIMIT}; else a StoreInputError. */
export function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new StoreInputError(`limit must be an integer from 1 to ${MAX_LIMIT}, got ${limit}`);
  return limit;
}

/** `now` (epoch milliseconds) as an ISO 8601 timestamp; a StoreInputError when it is not a finite number. */
export function iso(now: number): string {
  if (!Number.isFinite(now)) throw new StoreInputError(`now must be epoch milliseconds, got ${now}`);
  return new Date(now).toISOString();
}

/** A list of team ids read back. */
const TeamsParser = {
  safeParse(value: unknown) {
    if (Array.isArray(value) && value.every((team) => IdSchema.safeParse(team).success)) return { success: true as const, data: value as string[] };
    return { success: false as const, error: { issues: [{ path: [], message: 'not a list of team ids' }] } };
  },
};

/**
 * The request hash's `state`, `rev`, `teams` and `incarnation` fields, parsed; `null` when the
 * request is not stored. A field that does not parse throws StoreDataError naming the key.
 */
export function parseRecord(keys: StoreKeys, requestId: string, fields: (string | null | undefined)[]): StoredRequest | null {
  const key = keys.request(requestId);
  const [stateJson, rev, teamsJson, incarnation] = fields;
  if (stateJson == null && rev == null) return null;
  if (stateJson == null) throw new StoreDataError(key, 'request hash has no state', { field: 'state' });
  if (rev == null || !/^[1-9]\d{0,15}$/.test(rev)) throw new StoreDataError(key, `revision ${JSON.stringify(rev)} is not a positive integer`, { field: 'rev' });
  const state = parseStored(ProtocolStateSchema, parseStoredJson(stateJson, key, 'state'), key, 'state');
  if (state.request_id !== requestId) throw new StoreDataError(key, `state is for request ${state.request_id}`, { field: 'state' });
  const teams = parseStored(TeamsParser, parseStoredJson(teamsJson ?? '', key, 'teams'), key, 'teams');
  return { state, rev, teams, incarnation: incarnation ?? '' };
}


/**
 * `read`, except that a request that does not parse (StoreDataError) is reported on `logger` with
 * its key and answered as absent. For lists and sweeps: one corrupt record must not stop the
 * others being listed, decided or expired. Other errors (Redis down) still throw.
 */
export function readSkippingCorrupt(read: (requestId: string) => Promise<StoredRequest | null>, logger: Logger, during: string) {
  return async (requestId: string): Promise<StoredRequest | null> => {
    try {
      return await read(requestId);
    } catch (error) {
      if (!(error instanceof StoreDataError)) throw error;
      reportCorrupt(logger, error, during, requestId);
      return null;
    }
  };
}

/** One log line for a stored request skipped because it does not parse: its key, so an operator can inspect or delete it. */
export function reportCorrupt(logger: Logger, error: StoreDataError, during: string, requestId: string): void {
  logger.error(
    { code: error.code, key: error.key, field: error.field, requestId, during, issues: error.issues.slice(0, 5) },
    `stored request ${requestId} does not parse; skipped by ${during}: ${error.message.slice(0, 500)}`,
  );
}
