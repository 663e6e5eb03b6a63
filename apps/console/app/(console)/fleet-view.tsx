'use client';
/** The fleet: counts per status, then every agent with where it runs and what it last did; rows update from live `agent` events. */
import Link from 'next/link';
import type { FleetAgent, FleetCounts } from '@ahp/protocol';
import { fetchFleet } from '../../src/lib/api/fleet';
import { useLiveEvents } from '../../src/lib/live/live-provider';
import { useNow, useResource } from '../../src/lib/live/use-resource';
import { displayCounts, displayStatus, upsertAgent } from '../../src/lib/view/fleet-state';
import { StatusBadge } from '../../src/components/badges';
import { Empty, ErrorState, Loading, StaleNotice } from '../../src/components/states';
import { DecisionSummary } from '../../src/components/decision-summary';
import { Ago } from '../../src/components/time';

function Counts({ counts, gateways }: { counts: FleetCounts; gateways: number }) {
  const items: [string, number, string][] = [
    ['Agents', counts.total, 'total'],
    ['Connected', counts.connected, 'connected'],
    ['Working', counts.working, 'working'],
    ['Idle', counts.idle, 'idle'],
    ['Offline', counts.offline, 'offline'],
    ['Gateways', gateways, 'gateways'],
  ];
  return (
    <dl className="counts" aria-label="Fleet counts">
      {items.map(([label, value, key]) => (
        <div key={key} className={`count count-${key}`} data-testid={`count-${key}`}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A refusal newer than the last decision: the agent is held (no approved plan, signals unanswered). */
function HeldBy({ agent, now }: { agent: FleetAgent; now: number }) {
  const refusal = agent.last_refusal;
  if (!refusal || (agent.last_decision && Date.parse(agent.last_decision.at) >= Date.parse(refusal.at))) return null;
  const what = refusal.signal_ids ? `unanswered signals ${refusal.signal_ids.join(', ')}` : refusal.request_id ? `plan ${refusal.request_id}` : refusal.trigger;
  return (
    <span data-refusal={refusal.code} title={what}>
      {' '}
      · refused <code>{refusal.code}</code> · <Ago at={refusal.at} now={now} />
    </span>
  );
}

function LastDecision({ agent, now }: { agent: FleetAgent; now: number }) {
  const decision = agent.last_decision;
  if (!decision) return agent.last_refusal ? <HeldBy agent={agent} now={now} /> : <span className="muted">none</span>;
  return (
    <span>
      <DecisionSummary decision={decision} now={now} /> · <Ago at={decision.at} now={now} />
      <HeldBy agent={agent} now={now} />
    </span>
  );
}

function AgentRow({ agent, now }: { agent: FleetAgent; now: number }) {
  const { id, name, team, role } = agent.agent;
  return (
    <tr data-agent-id={id}>
      <th scope="row" data-label="Agent">
        <Link href={`/agents/${encodeURIComponent(id)}`}>{name}</Link> <code className="muted">{id}</code>
        {agent.client === 'claude-code' ? (
          <span className="muted" title="Claude Code hooks over HTTP: present while it sends hooks, answers inferred where its next hook tells them, otherwise not reported by this client">
            {' '}
            · Claude Code (answers inferred or not reported)
          </span>
        ) : null}
      </th>
      <td data-label="Status">
        <StatusBadge status={displayStatus(agent, now)} />
        {agent.hooks_in_flight > 0 ? <span className="muted"> {agent.hooks_in_flight} in flight</span> : null}
      </td>
      <td data-label="Team / role">{team ? `${team}${role ? ` · ${role}` : ''}` : <span className="muted">no team</span>}</td>
      <td data-label="Gateway">{agent.gateway_id ? <code>{agent.gateway_id}</code> : <span className="muted">–</span>}</td>
      <td data-label="Session">{agent.session_id ? <code className="truncate">{agent.session_id}</code> : <span className="muted">–</span>}</td>
      <td data-label="Last hook">
        {agent.last_hook ? (
          <span>
            <code>{agent.last_hook.trigger}</code>
            {agent.last_hook.tool ? <> · {agent.last_hook.tool}</> : null} · <Ago at={agent.last_hook.at} now={now} />
          </span>
        ) : (
          <span className="muted">none</span>
        )}
      </td>
      <td data-label="Last decision">
        <LastDecision agent={agent} now={now} />
      </td>
      <td data-label="Last seen">
        <Ago at={agent.last_seen_at} now={now} />
      </td>
    </tr>
  );
}

export function FleetView() {
  const fleet = useResource('fleet', fetchFleet);
  const now = useNow(5_000);
  useLiveEvents((event) => {
    if (event.kind === 'agent') fleet.mutate((data) => upsertAgent(data, event.agent));
  });

  return (
    <>
      <div className="page-head">
        <h1>Fleet</h1>
        <p className="muted">Every agent the control plane has seen, live.</p>
      </div>
      {fleet.status === 'loading' ? <Loading label="Loading the fleet" /> : null}
      {fleet.status === 'error' && fleet.error ? <ErrorState title="Could not load the fleet." error={fleet.error} onRetry={fleet.reload} /> : null}
      {fleet.data ? (
        <>
          {fleet.error ? <StaleNotice error={fleet.error} onRetry={fleet.reload} /> : null}
          <Counts counts={displayCounts(fleet.data.agents, now)} gateways={fleet.data.gateways.length} />
          {fleet.data.agents.length === 0 ? (
            <Empty title="No agents yet.">Agents appear here as soon as one connects to a gateway with its token.</Empty>
          ) : (
            <div className="table-scroll">
              <table className="table table-cards" aria-describedby="fleet-caption">
                <caption id="fleet-caption" className="visually-hidden">
                  Agents, sorted by id
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Agent</th>
                    <th scope="col">Status</th>
                    <th scope="col">Team / role</th>
                    <th scope="col">Gateway</th>
                    <th scope="col">Session</th>
                    <th scope="col">Last hook</th>
                    <th scope="col">Last decision</th>
                    <th scope="col">Last seen</th>
                  </tr>
                </thead>
                <tbody>
                  {fleet.data.agents.map((agent) => (
                    <AgentRow key={agent.agent.id} agent={agent} now={now} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      ) : null}
    </>
  );
}
