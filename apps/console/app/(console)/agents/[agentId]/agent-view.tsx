'use client';
/**
 * One agent: where it is and what it last did (its fleet row), its current plan, its enforcement
 * state (breakers, hold, escalation counters; reset by approvers), and its timeline — reported
 * events, signals and its answers, requests — newest first, live.
 */
import Link from 'next/link';
import { useState } from 'react';
import type { FleetAgent, Plan, TimelineEntry } from '@ahp/protocol';
import { fetchFleet } from '@/lib/api/fleet';
import { hookHref } from '@/lib/api/hooks';
import { fetchAgentRequests } from '@/lib/api/requests';
import { fetchSignalLines } from '@/lib/api/signals';
import { fetchTimeline } from '@/lib/api/timeline';
import { useFollowAgents, useLiveEvents } from '@/lib/live/live-provider';
import { useNow, useResource } from '@/lib/live/use-resource';
import { displayStatus, upsertAgent } from '@/lib/view/fleet-state';
import { SIGNAL_WINDOWS } from '@/lib/view/signal-filters';
import { mergeTimeline } from '@/lib/view/timeline-merge';
import { StatusBadge } from '@/components/badges';
import { PlanView } from '@/components/plan-view';
import { Empty, ErrorState, Loading } from '@/components/states';
import { DecisionSummary } from '@/components/decision-summary';
import { Ago } from '@/components/time';
import { useRoleAllows } from '@/components/operator-context';
import { EnforcementPanel } from './enforcement-panel';
import { SignalForm } from './signal-form';
import { TimelineEntryRow } from './timeline-item';

const WINDOWS = ['1h', '24h', '7d'] as const;
type AgentWindow = (typeof WINDOWS)[number];
const SIGNAL_LIMIT = 1000;

function AgentSummary({ row, now }: { row: FleetAgent; now: number }) {
  return (
    <dl className="meta meta-wide">
      <div>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={displayStatus(row, now)} />
          {row.hooks_in_flight ? <span className="muted"> {row.hooks_in_flight} hooks in flight</span> : null}
        </dd>
      </div>
      <div>
        <dt>Team / role</dt>
        <dd>{row.agent.team ? `${row.agent.team}${row.agent.role ? ` · ${row.agent.role}` : ''}` : 'no team'}</dd>
      </div>
      <div>
        <dt>Gateway</dt>
        <dd>{row.gateway_id ? <code>{row.gateway_id}</code> : '–'}</dd>
      </div>
      <div>
        <dt>Session</dt>
        <dd>{row.session_id ? <code className="truncate">{row.session_id}</code> : '–'}</dd>
      </div>
      <div>
        <dt>Last hook</dt>
        <dd>
          {row.last_hook ? (
            <>
              <code>{row.last_hook.trigger}</code>
              {row.last_hook.tool ? ` · ${row.last_hook.tool}` : ''} · <Ago at={row.last_hook.at} now={now} />
            </>
          ) : (
            'none'
          )}
        </dd>
      </div>
      <div>
        <dt>Last decision</dt>
        <dd>
          {row.last_decision ? (
            <>
              <DecisionSummary decision={row.last_decision} now={now} /> · <Ago at={row.last_decision.at} now={now} />
              {/* The only place a hook without signals shows: its (partial) drill-down lives as long as its hook record. */}
              {' '}
              · <Link href={hookHref(row.last_decision.hook_id)} data-testid="last-decision-link">details</Link>
            </>
          ) : (
            'none'
          )}
        </dd>
      </div>
      <div>
        <dt>Last seen</dt>
        <dd>
          <Ago at={row.last_seen_at} now={now} />
        </dd>
      </div>
    </dl>
  );
}

function latestPlan(events: readonly TimelineEntry[]): Plan | undefined {
  for (const entry of events) if (entry.event.kind === 'plan_progress') return entry.event.plan;
  return undefined;
}

export function AgentView({ agentId }: { agentId: string }) {
  const now = useNow(5_000);
  const [span, setSpan] = useState<AgentWindow>('24h');
  // The gateway searches ids, names and teams; the row is the one with exactly this id.
  const fleet = useResource(`fleet:${agentId}`, (signal) => fetchFleet({ q: agentId }, signal));
  const timeline = useResource(`timeline:${agentId}`, (signal) => fetchTimeline(agentId, signal));
  const signals = useResource(
    `signals:${agentId}:${span}`,
    (signal) => fetchSignalLines({ agent: agentId, since: new Date(Date.now() - SIGNAL_WINDOWS[span]).toISOString() }, SIGNAL_LIMIT, signal),
    { refreshOn: (event) => event.kind === 'signals' && event.agent_ids.includes(agentId), debounceMs: 500 },
  );
  const requests = useResource(`requests:${agentId}`, (signal) => fetchAgentRequests(agentId, signal), { refreshOn: (event) => event.kind === 'request', debounceMs: 300 });

  useFollowAgents([agentId]);
  useLiveEvents((event) => {
    if (event.kind === 'agent' && event.agent.agent.id === agentId) fleet.mutate((data) => upsertAgent(data, event.agent));
    if (event.kind === 'timeline' && event.entry.agent_id === agentId) {
      timeline.mutate((events) => [event.entry, ...events.filter((entry) => entry.id !== event.entry.id)]);
    }
  });

  const maySignal = useRoleAllows('approver');
  const row = fleet.data?.agents.find((agent) => agent.agent.id === agentId);
  const loading = timeline.status === 'loading' || signals.status === 'loading' || requests.status === 'loading';
  const failures = [
    ['timeline', timeline],
    ['signals', signals],
    ['requests', requests],
  ] as const;
  const items = mergeTimeline({ events: timeline.data ?? [], lines: signals.data?.lines ?? [], requests: requests.data ?? [] });
  const plan = latestPlan(timeline.data ?? []);

  return (
    <>
      <div className="page-head">
        <h1>{row ? row.agent.name : agentId}</h1>
        <p className="muted">
          Agent <code>{agentId}</code>
        </p>
      </div>
      {row ? <AgentSummary row={row} now={now} /> : fleet.status === 'ready' ? <p className="muted">This agent is not in the fleet view (never connected, or its record expired).</p> : null}
      {plan ? (
        <section aria-labelledby="plan-heading" className="section">
          <h2 id="plan-heading">Current plan</h2>
          <PlanView plan={plan} />
        </section>
      ) : null}
      {maySignal ? (
        <section aria-label="Send a signal" className="section">
          <SignalForm agentId={agentId} onSent={() => signals.reload()} />
        </section>
      ) : null}
      <EnforcementPanel agentId={agentId} mayReset={maySignal} />
      <section aria-labelledby="timeline-heading" className="section">
        <div className="section-head">
          <h2 id="timeline-heading">Timeline</h2>
          <div className="field-inline">
            <label htmlFor="agent-window">Signals from the last</label>
            <select id="agent-window" value={span} onChange={(event) => setSpan(event.target.value as AgentWindow)}>
              {WINDOWS.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </div>
        </div>
        {failures.map(([what, resource]) =>
          resource.error ? <ErrorState key={what} title={`Could not load the ${what}.`} error={resource.error} onRetry={resource.reload} /> : null,
        )}
        {signals.data?.truncated ? (
          <p className="notice notice-info" role="note">
            Showing the first {SIGNAL_LIMIT} signals of the last {span}; choose a shorter window to see the newest.
          </p>
        ) : null}
        {loading && items.length === 0 ? <Loading label="Loading the timeline" /> : null}
        {!loading && items.length === 0 ? <Empty title="Nothing recorded yet.">Hooks, signals, reported events and requests of this agent appear here as they happen.</Empty> : null}
        {items.length > 0 ? (
          <ol className="timeline" aria-label={`Timeline of ${agentId}, newest first`}>
            {items.map((item) => (
              <TimelineEntryRow key={item.key} item={item} agentId={agentId} />
            ))}
          </ol>
        ) : null}
      </section>
    </>
  );
}
