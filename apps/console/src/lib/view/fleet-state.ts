/**
 * The fleet as the console holds it between snapshots: live `agent` events replace one row each,
 * and a `working` agent that has been quiet for longer than the working window shows as `idle`
 * without waiting for the next event.
 */
import { FLEET_WORKING_WINDOW_MS, countFleet, type FleetAgent, type FleetAgentStatus, type FleetCounts, type FleetResponse } from '@ahp/protocol';

/** `fleet` with `agent`'s row replaced (or added), rows kept sorted by agent id. */
export function upsertAgent(fleet: FleetResponse, agent: FleetAgent): FleetResponse {
  const agents = fleet.agents.filter((row) => row.agent.id !== agent.agent.id);
  agents.push(agent);
  agents.sort((a, b) => (a.agent.id < b.agent.id ? -1 : a.agent.id > b.agent.id ? 1 : 0));
  return { ...fleet, agents, counts: countFleet(agents) };
}

/** The status to show at `nowMs`: `working` decays to `idle` once the last hook is older than the window and nothing is in flight. */
export function displayStatus(agent: FleetAgent, nowMs: number): FleetAgentStatus {
  if (agent.status !== 'working' || agent.hooks_in_flight > 0 || agent.last_hook === undefined) return agent.status;
  return nowMs - Date.parse(agent.last_hook.at) > FLEET_WORKING_WINDOW_MS ? 'idle' : 'working';
}

/** Counts per displayed status. */
export function displayCounts(agents: readonly FleetAgent[], nowMs: number): FleetCounts {
  return countFleet(agents.map((agent) => ({ status: displayStatus(agent, nowMs) })));
}
