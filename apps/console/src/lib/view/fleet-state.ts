/**
 * The fleet as the console holds it between snapshots: live `agent` events replace one row each,
 * and a `working` agent that has been quiet for longer than the working window shows as `idle`
 * without waiting for the next event.
 */
import {
  FLEET_WORKING_WINDOW_MS,
  countFleet,
  fleetComparator,
  fleetRowMatches,
  type FleetAgent,
  type FleetAgentStatus,
  type FleetQuery,
  type FleetResponse,
} from '@ahp/protocol';

/** `fleet` with `agent`'s row replaced (or added), rows kept sorted by agent id. */
export function upsertAgent(fleet: FleetResponse, agent: FleetAgent): FleetResponse {
  const agents = fleet.agents.filter((row) => row.agent.id !== agent.agent.id);
  agents.push(agent);
  agents.sort((a, b) => (a.agent.id < b.agent.id ? -1 : a.agent.id > b.agent.id ? 1 : 0));
  return { ...fleet, agents, counts: countFleet(agents) };
}

/** What the fleet page shows: the gateway's query, with the page size as `limit`. */
export type FleetViewQuery = Pick<FleetQuery, 'q' | 'status' | 'team' | 'gateway' | 'client' | 'decision' | 'sort' | 'order' | 'offset' | 'limit'>;

/**
 * A live row applied to the page on screen, by the same rules the gateway pages with: replaced
 * where it is (and moved if its sort key changed), dropped when it no longer matches the
 * filters, added when it now matches and sorts inside the page (or the page has room). Counts and
 * `total` are the gateway's: the page re-reads them soon after.
 */
export function applyLiveRow(page: FleetResponse, agent: FleetAgent, query: FleetViewQuery): FleetResponse {
  const rest = page.agents.filter((row) => row.agent.id !== agent.agent.id);
  const wasShown = rest.length !== page.agents.length;
  if (!fleetRowMatches(agent, query)) return wasShown ? { ...page, agents: rest } : page;
  const compare = fleetComparator(query);
  const last = page.agents[page.agents.length - 1];
  const fits = wasShown || page.agents.length < query.limit || (last !== undefined && compare(agent, last) < 0);
  if (!fits) return page;
  const agents = [...rest, agent].sort(compare).slice(0, query.limit);
  return { ...page, agents };
}

/** The status to show at `nowMs`: `working` decays to `idle` once the last hook is older than the window and nothing is in flight. */
export function displayStatus(agent: FleetAgent, nowMs: number): FleetAgentStatus {
  if (agent.status !== 'working' || agent.hooks_in_flight > 0 || agent.last_hook === undefined) return agent.status;
  return nowMs - Date.parse(agent.last_hook.at) > FLEET_WORKING_WINDOW_MS ? 'idle' : 'working';
}
