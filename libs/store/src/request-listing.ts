/**
 * Reading requests: one with its history, a filtered listing newest (or oldest) first (through the smallest
 * index among the filters), and the plan approval an agent's tool calls wait for.
 */
import { RequestHistoryEntrySchema, type Logger, type ProtocolState } from '@ahp/protocol';
import type { RequestStore } from './contracts.js';
import type { StoreKeys } from './keys.js';
import { parseStored, parseStoredJson } from './lua.js';
import type { RedisClient } from './redis-client.js';
import { MAX_LIMIT, checkLimit, parseRecord, readSkippingCorrupt, type StoredRequest } from './request-records.js';
import type { RequestTransitions } from './request-transitions.js';

/** The reads of {@link RequestStore}. */
export type RequestListing = Pick<RequestStore, 'get' | 'list' | 'pendingPlanApproval'>;

/**
 * Creates the reads of the request store; `list` and `pendingPlanApproval` read through
 * `transitions` (which runs owed follow-ups first) and skip a request that does not parse,
 * reporting it on `logger`: one corrupt record must not hide every other one. `get` of that one
 * request, and `pendingPlanApproval` of its sender, still throw StoreDataError.
 */
export function createRequestListing(redis: RedisClient, keys: StoreKeys, transitions: RequestTransitions, logger: Logger): RequestListing {
  const listed = readSkippingCorrupt(transitions.read, logger, 'list');
  const { read } = transitions;

  function matches(stored: StoredRequest, filter: Parameters<RequestStore['list']>[0]): boolean {
    const { state } = stored;
    const targetAgent = state.target.kind === 'agent' ? state.target.agent : undefined;
    if (filter.status !== undefined && state.status !== filter.status) return false;
    if (filter.type !== undefined && state.type !== filter.type) return false;
    if (filter.agent !== undefined && state.sender !== filter.agent && targetAgent !== filter.agent) return false;
    if (filter.team !== undefined && !stored.teams.includes(filter.team)) return false;
    if (filter.target !== undefined && (filter.target === 'operators' ? state.target.kind !== 'operators' : targetAgent !== filter.target)) return false;
    return true;
  }

  return {
    async get(requestId: string) {
      const key = keys.request(requestId);
      const [fields, rawHistory] = await Promise.all([
        redis.hmGet(key, ['state', 'rev', 'teams', 'incarnation']),
        redis.lRange(keys.requestHistory(requestId), 0, -1),
      ]);
      const stored = parseRecord(keys, requestId, fields);
      if (stored === null) return null;
      const historyKey = keys.requestHistory(requestId);
      const history = rawHistory.map((raw, index) => parseStored(RequestHistoryEntrySchema, parseStoredJson(raw, historyKey, String(index)), historyKey, String(index)));
      return { state: stored.state, history };
    },

    async list(filter) {
      const limit = checkLimit(filter.limit ?? 50);
      const candidates = [
        ...(filter.agent === undefined ? [] : [keys.requestsByAgent(filter.agent)]),
        ...(filter.team === undefined ? [] : [keys.requestsByTeam(filter.team)]),
        ...(filter.target === undefined ? [] : [keys.requestsByTarget(filter.target === 'operators' ? { kind: 'operators' } : { kind: 'agent', agent: filter.target })]),
        ...(filter.status === undefined ? [] : [keys.requestsByStatus(filter.status)]),
      ];
      let index = candidates[0] ?? keys.requestsAll;
      if (candidates.length > 1) {
        const sizes = await Promise.all(candidates.map((candidate) => redis.zCard(candidate)));
        index = candidates[sizes.indexOf(Math.min(...sizes))] ?? index;
      }
      // Pages of ids newest (or oldest) first; a request settled or purged between two pages may be seen twice or
      // not at all, as with any paged listing of live data. `seen` keeps the answer free of duplicates.
      const reverse = filter.order !== 'oldest';
      const page = Math.min(Math.max(limit * 2, 50), MAX_LIMIT);
      const found: ProtocolState[] = [];
      const seen = new Set<string>();
      for (let offset = 0; found.length < limit; offset += page) {
        const ids = await redis.zRange(index, offset, offset + page - 1, reverse ? { REV: true } : undefined);
        const records = await Promise.all(ids.map((id) => listed(id)));
        for (const record of records) {
          if (record === null || seen.has(record.state.request_id) || !matches(record, filter)) continue;
          seen.add(record.state.request_id);
          found.push(record.state);
          if (found.length === limit) break;
        }
        if (ids.length < page) break;
      }
      return found;
    },

    async pendingPlanApproval(agentId: string): Promise<ProtocolState | null> {
      const ids = await redis.sMembers(keys.planGate(agentId));
      // Not skipped: a plan approval that does not parse still holds the agent's tool calls (fail
      // closed), and the gate is that one agent's, so nobody else is held by it.
      const records = await Promise.all(ids.map((id) => read(id)));
      const pending = records
        .flatMap((record) => (record === null ? [] : [record.state]))
        .filter((state) => state.type === 'plan_approval' && state.status === 'pending' && state.sender === agentId)
        .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
      return pending[0] ?? null;
    },
  };
}
