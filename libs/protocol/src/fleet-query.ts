/**
 * Search, filter, sort and page the fleet: the gateway answers `GET /fleet` with one page of a
 * fleet of tens of thousands of agents, and the console applies the same rules to a live row
 * (does it belong on the page it shows?). Pure: rows in, one page out.
 */
import type { FleetAgent, FleetDecisionFilter, FleetQuery, FleetSort } from './fleet.js';

/** A page of the rows matching a query, and how many matched in all. */
export interface FleetPage {
  agents: FleetAgent[];
  total: number;
}

/** The order statuses sort in: what needs attention first. */
const STATUS_RANK: Record<FleetAgent['status'], number> = { working: 0, connected: 1, idle: 2, offline: 3 };

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const COMPARE: Record<FleetSort, (a: FleetAgent, b: FleetAgent) => number> = {
  agent: () => 0,
  status: (a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status],
  team: (a, b) => compareText(a.agent.team ?? '', b.agent.team ?? ''),
  last_seen: (a, b) => Date.parse(a.last_seen_at) - Date.parse(b.last_seen_at),
};

/** The filter part of a query: the fields a live row is checked against. */
export type FleetFilter = Pick<FleetQuery, 'q' | 'status' | 'team' | 'gateway' | 'client' | 'decision'>;

/** Which {@link FleetDecisionFilter} the row's last decision falls under. */
export function fleetDecisionKind(row: Pick<FleetAgent, 'last_decision'>): FleetDecisionFilter {
  const decision = row.last_decision;
  if (decision === undefined) return 'none';
  if (decision.awaiting_approval !== undefined) return 'awaiting_approval';
  if (decision.decided_by === 'failure_policy') return 'failure_policy';
  return decision.allowed ? 'allowed' : 'denied';
}

function searchNeedle(q: string | undefined): string | undefined {
  return q?.trim().toLowerCase() || undefined;
}

/** Whether `row` passes the query's search and filters. */
export function fleetRowMatches(row: FleetAgent, query: FleetFilter): boolean {
  return matches(row, query, searchNeedle(query.q));
}

/** The order of `query` (ties by agent id), as a comparator. */
export function fleetComparator(query: Pick<FleetQuery, 'sort' | 'order'>): (a: FleetAgent, b: FleetAgent) => number {
  const direction = query.order === 'desc' ? -1 : 1;
  const compare = COMPARE[query.sort];
  return (a, b) => direction * (compare(a, b) || compareText(a.agent.id, b.agent.id));
}

function matches(row: FleetAgent, query: FleetFilter, needle: string | undefined): boolean {
  if (query.status !== undefined && row.status !== query.status) return false;
  if (query.team !== undefined && row.agent.team !== query.team) return false;
  if (query.gateway !== undefined && row.gateway_id !== query.gateway) return false;
  if (query.client !== undefined && (row.client ?? 'sdk') !== query.client) return false;
  if (query.decision !== undefined && fleetDecisionKind(row) !== query.decision) return false;
  if (needle === undefined) return true;
  return row.agent.id.toLowerCase().includes(needle) || row.agent.name.toLowerCase().includes(needle) || (row.agent.team ?? '').toLowerCase().includes(needle);
}

/** The page of `rows` that `query` asks for; ties are broken by agent id, so pages never overlap. */
export function queryFleet(rows: readonly FleetAgent[], query: FleetQuery): FleetPage {
  const needle = searchNeedle(query.q);
  const matching = rows.filter((row) => matches(row, query, needle));
  matching.sort(fleetComparator(query));
  return { agents: matching.slice(query.offset, query.offset + query.limit), total: matching.length };
}
