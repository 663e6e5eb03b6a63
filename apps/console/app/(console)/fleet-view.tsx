'use client';
/**
 * The fleet: counts per status over every agent, then a page of agents (search, filters and sort
 * run on the gateway, so 20,000 agents never reach the browser), with where each runs and what it
 * last did. Rows on the page update from live `agent` events; counts follow within seconds.
 */
import Link from 'next/link';
import { usePathname, useSearchParams } from 'next/navigation';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { MAX_LIVE_AGENTS, type FleetAgent, type FleetAgentStatus, type FleetClient, type FleetCounts, type FleetDecisionFilter, type FleetSort } from '@ahp/protocol';
import { fetchFleet } from '@/lib/api/fleet';
import { useFollowAgents, useLiveEvents } from '@/lib/live/live-provider';
import { useNow, useResource } from '@/lib/live/use-resource';
import { applyLiveRow, displayStatus, type FleetViewQuery } from '@/lib/view/fleet-state';
import { FLEET_PAGE_SIZE, defaultOrder, fleetQueryOf, fleetViewFromSearch, isFiltered, searchFromFleetView, type FleetView as FleetViewState } from '@/lib/view/fleet-filters';
import { StatusBadge } from '@/components/badges';
import { Empty, ErrorState, Loading, StaleNotice } from '@/components/states';
import { DecisionSummary } from '@/components/decision-summary';
import { Ago } from '@/components/time';

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

const CLIENT_LABELS: Record<FleetClient, string> = { 'claude-code': 'Claude Code', codex: 'Codex', copilot: 'Copilot' };

function AgentRow({ agent, now }: { agent: FleetAgent; now: number }) {
  const { id, name, team, role } = agent.agent;
  return (
    <tr data-agent-id={id}>
      <th scope="row" data-label="Agent">
        <Link href={`/agents/${encodeURIComponent(id)}`}>{name}</Link> <code className="muted">{id}</code>
        {agent.client ? (
          <span className="muted" data-client={agent.client} title="A coding agent's hooks over HTTP: present while it sends hooks; its answers are inferred where its next hook tells them (Claude Code), otherwise not reported by this client">
            {' '}
            · {CLIENT_LABELS[agent.client]} hooks
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

/** A fleet page re-reads counts and order at most this often while live rows arrive. */
const REREAD_EVERY_MS = 3_000;
/** Re-read of the page and its counts when no followed row changed: other pages' agents still do. */
const IDLE_REREAD_MS = 5_000;

const SORT_LABELS: Record<FleetSort, string> = { agent: 'Agent id', status: 'Status (working first)', team: 'Team', last_seen: 'Last seen' };
const STATUS_FILTERS: readonly FleetAgentStatus[] = ['working', 'connected', 'idle', 'offline'];
const DECISION_LABELS: Record<FleetDecisionFilter, string> = {
  none: 'None yet',
  allowed: 'Allowed',
  denied: 'Denied',
  awaiting_approval: 'Awaiting approval',
  failure_policy: 'By the failure policy',
};

/** The form's text and select values; empty means "any". */
interface FilterDraft {
  q: string;
  status: string;
  client: string;
  team: string;
  gateway: string;
  decision: string;
  sort: FleetSort;
  order: 'asc' | 'desc';
}

function draftOf(view: FleetViewState): FilterDraft {
  return { q: view.q ?? '', status: view.status ?? '', client: view.client ?? '', team: view.team ?? '', gateway: view.gateway ?? '', decision: view.decision ?? '', sort: view.sort, order: view.order };
}

/** The form back into a view (first page); the values go through the URL's own parser, so a bad one is dropped there. */
function viewOfDraft(draft: FilterDraft): FleetViewState {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(draft)) if (value.trim() !== '') params.set(key, value.trim());
  return fleetViewFromSearch(params);
}

function FleetFilters({ value, gateways, onApply }: { value: FleetViewState; gateways: readonly string[]; onApply(view: FleetViewState): void }) {
  const [draft, setDraft] = useState(() => draftOf(value));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onApply(viewOfDraft(draft));
  };
  // The gateway filter offers the live gateways, and keeps one from the URL that is not live (any more).
  const gatewayOptions = draft.gateway && !gateways.includes(draft.gateway) ? [...gateways, draft.gateway] : gateways;
  return (
    <form className="filters card" onSubmit={submit} aria-label="Fleet search">
      <div className="field">
        <label htmlFor="fleet-q">Search</label>
        <input id="fleet-q" type="search" value={draft.q} maxLength={100} placeholder="id, name or team" onChange={(event) => setDraft({ ...draft, q: event.target.value })} />
      </div>
      <div className="field">
        <label htmlFor="fleet-status">Status</label>
        <select id="fleet-status" value={draft.status} onChange={(event) => setDraft({ ...draft, status: event.target.value })}>
          <option value="">Any status</option>
          {STATUS_FILTERS.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="fleet-client">Client</label>
        <select id="fleet-client" value={draft.client} onChange={(event) => setDraft({ ...draft, client: event.target.value })}>
          <option value="">Any client</option>
          <option value="sdk">SDK (WebSocket)</option>
          {(Object.keys(CLIENT_LABELS) as FleetClient[]).map((client) => (
            <option key={client} value={client}>
              {CLIENT_LABELS[client]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="fleet-team">Team</label>
        <input id="fleet-team" value={draft.team} placeholder="team" onChange={(event) => setDraft({ ...draft, team: event.target.value })} />
      </div>
      <div className="field">
        <label htmlFor="fleet-gateway">Gateway</label>
        <select id="fleet-gateway" value={draft.gateway} onChange={(event) => setDraft({ ...draft, gateway: event.target.value })}>
          <option value="">Any gateway</option>
          {gatewayOptions.map((gateway) => (
            <option key={gateway} value={gateway}>
              {gateway}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="fleet-decision">Last decision</label>
        <select id="fleet-decision" value={draft.decision} onChange={(event) => setDraft({ ...draft, decision: event.target.value })}>
          <option value="">Any decision</option>
          {(Object.keys(DECISION_LABELS) as FleetDecisionFilter[]).map((decision) => (
            <option key={decision} value={decision}>
              {DECISION_LABELS[decision]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="fleet-sort">Sort by</label>
        <select id="fleet-sort" value={draft.sort} onChange={(event) => setDraft({ ...draft, sort: event.target.value as FleetSort, order: defaultOrder(event.target.value as FleetSort) })}>
          {(Object.keys(SORT_LABELS) as FleetSort[]).map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="fleet-order">Order</label>
        <select id="fleet-order" value={draft.order} onChange={(event) => setDraft({ ...draft, order: event.target.value as FilterDraft['order'] })}>
          <option value="asc">Ascending</option>
          <option value="desc">Descending</option>
        </select>
      </div>
      <button type="submit" className="button">
        Apply
      </button>
    </form>
  );
}

/**
 * The view lives in the URL (`?q=…&status=…&page=2`): applying filters or turning a page pushes a
 * history entry, so back and forward step through views, and a reload or a shared link opens the
 * same one.
 */
export function FleetView() {
  const params = useSearchParams();
  const pathname = usePathname();
  const search = params.toString();
  const view = fleetViewFromSearch(new URLSearchParams(search));
  const query: FleetViewQuery = fleetQueryOf(view);
  const { offset } = query;
  const key = JSON.stringify(query);
  const fleet = useResource(`fleet:${key}`, (signal) => fetchFleet(query, signal));
  const now = useNow(5_000);
  const reread = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(reread.current), []);
  // A fleet that fits in one live stream is followed whole: every change arrives as it happens.
  // A larger one only for the rows shown here, so the browser does not receive a row for every
  // agent that changes; then the counts, the totals and rows entering from other pages come with a
  // re-read, at most every REREAD_EVERY_MS while shown rows change and every IDLE_REREAD_MS
  // otherwise (other pages' agents change without an event reaching this browser).
  const shownIds = fleet.data === undefined || fleet.data.counts.total <= MAX_LIVE_AGENTS ? undefined : fleet.data.agents.map((row) => row.agent.id);
  const followsAll = shownIds === undefined;
  useFollowAgents(shownIds ?? 'all');
  const { reload } = fleet;
  useEffect(() => {
    if (followsAll) return undefined;
    const cadence = setInterval(() => {
      if (reread.current === undefined) reload();
    }, IDLE_REREAD_MS);
    return () => clearInterval(cadence);
  }, [reload, followsAll]);
  useLiveEvents((event) => {
    if (event.kind !== 'agent') return;
    fleet.mutate((data) => applyLiveRow(data, event.agent, query));
    reread.current ??= setTimeout(() => {
      reread.current = undefined;
      reload();
    }, REREAD_EVERY_MS);
  });

  // The browser's own pushState, which Next's router follows (useSearchParams updates, back and
  // forward work): unlike router.push it does not render the page again on the server — a round
  // trip (with the session check against the gateway) that made every search wait for it.
  const show = (next: FleetViewState) => {
    const qs = searchFromFleetView(next);
    window.history.pushState(null, '', qs ? `${pathname}?${qs}` : pathname);
  };
  const total = fleet.data?.total ?? 0;
  const shown = fleet.data?.agents.length ?? 0;
  const filtered = isFiltered(view);

  return (
    <>
      <div className="page-head">
        <h1>Fleet</h1>
        <p className="muted">Every agent the control plane has seen, live. Search, filters and pages are served by the gateway.</p>
      </div>
      {fleet.data ? <Counts counts={fleet.data.counts} gateways={fleet.data.gateways.length} /> : null}
      <FleetFilters key={search} value={view} gateways={fleet.data?.gateways.map((gateway) => gateway.gateway_id) ?? []} onApply={show} />
      {fleet.status === 'loading' ? <Loading label="Loading the fleet" /> : null}
      {fleet.status === 'error' && fleet.error ? <ErrorState title="Could not load the fleet." error={fleet.error} onRetry={fleet.reload} /> : null}
      {fleet.data ? (
        <>
          {fleet.error ? <StaleNotice error={fleet.error} onRetry={fleet.reload} /> : null}
          {shown === 0 ? (
            filtered ? (
              <Empty title="No agent matches.">Change the search or the filters.</Empty>
            ) : (
              <Empty title="No agents yet.">Agents appear here as soon as one connects to a gateway with its token.</Empty>
            )
          ) : (
            <>
              <p className="muted" role="status" data-testid="fleet-range">
                {offset + 1}–{offset + shown} of {total}
              </p>
              <div className="table-scroll">
                <table className="table table-cards" aria-describedby="fleet-caption">
                  <caption id="fleet-caption" className="visually-hidden">
                    Agents, sorted by {SORT_LABELS[view.sort].toLowerCase()}
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
              <nav className="pager" aria-label="Fleet pages">
                <button type="button" className="button" disabled={view.page === 0} onClick={() => show({ ...view, page: Math.max(0, view.page - 1) })}>
                  Previous
                </button>
                <button type="button" className="button" disabled={offset + FLEET_PAGE_SIZE >= total} onClick={() => show({ ...view, page: view.page + 1 })}>
                  Next
                </button>
              </nav>
            </>
          )}
        </>
      ) : null}
    </>
  );
}
