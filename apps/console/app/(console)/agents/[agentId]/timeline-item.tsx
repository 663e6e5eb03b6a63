/** One line of an agent's timeline: a signal, a response, a reported event or a request. */
import Link from 'next/link';
import type { AgentEvent, ProtocolState, TimelineEntry } from '@ahp/protocol';
import type { TimelineItem } from '@/lib/view/timeline-merge';
import { planProgress } from '@/lib/view/timeline-merge';
import { hookHref } from '@/lib/api/hooks';
import { formatMs } from '@/lib/view/format';
import { teamActivityView } from '@/lib/view/team-activity';
import { IntensityBadge, RequestStatusBadge } from '@/components/badges';
import { PlanView } from '@/components/plan-view';
import { SignalSubjectView } from '@/components/signal-subject';
import { Timestamp } from '@/components/time';
import { VisibleText } from '@/components/visible-text';

const REQUEST_LABEL: Record<ProtocolState['type'], string> = { plan_approval: 'plan approval', tool_approval: 'tool approval', shutdown: 'shutdown', intervention: 'intervention' };

function target(request: ProtocolState): string {
  return request.target.kind === 'operators' ? 'operators' : request.target.agent;
}

function EventBody({ entry }: { entry: TimelineEntry }) {
  const event = entry.event;
  switch (event.kind) {
    case 'control_signal': {
      const signal = event.control_signal;
      return (
        <p>
          Control <code>{signal.control}</code>
          {signal.step_id ? (
            <>
              {' '}
              for step <code>{signal.step_id}</code>
            </>
          ) : null}
          {signal.format === 'legacy' ? (
            <span className="badge badge-warning" title="The model wrote a bare STEP_DONE/REPLAN line instead of the JSON control envelope">
              legacy string
            </span>
          ) : (
            <span className="badge badge-quiet">envelope</span>
          )}
          {signal.reason ? <span className="muted"> — {signal.reason}</span> : null}
        </p>
      );
    }
    case 'plan_progress': {
      const progress = planProgress(event.plan.steps);
      const step = event.step_id ? event.plan.steps.find((s) => s.id === event.step_id) : undefined;
      return (
        <details>
          <summary>
            Plan progress: {progress.settled}/{progress.total} steps settled
            {step ? (
              <>
                {' '}
                · step <code>{step.id}</code> → {step.status.replace('_', ' ')}
              </>
            ) : null}
            {progress.failed ? <span className="muted"> · {progress.failed} failed</span> : null}
          </summary>
          <PlanView plan={event.plan} />
        </details>
      );
    }
    case 'verification': {
      const result = event.result;
      return (
        <div>
          <p>
            Verification <span className={`badge ${result.ok ? 'badge-ok' : 'badge-warning'}`}>{result.ok ? 'passed' : result.type.replace('_', ' ')}</span> {result.summary}
          </p>
          {result.details.length ? (
            <ul className="compact-list">
              {result.details.slice(0, 10).map((detail, i) => (
                <li key={i}>
                  <code>
                    {detail.file}:{detail.line}
                  </code>{' '}
                  {detail.error}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      );
    }
    case 'team_activity':
      return <TeamActivityBody entry={entry} event={event} />;
  }
}

/** A team event: a verified teammate as the agent it is, any other name as what the sender reported (lib/view/team-activity.ts). */
function TeamActivityBody({ entry, event }: { entry: TimelineEntry; event: Extract<AgentEvent, { kind: 'team_activity' }> }) {
  const view = teamActivityView(entry, event);
  return (
    <p>
      Team: {view.label}
      {view.by ? (
        <>
          {' '}
          by <Link href={`/agents/${encodeURIComponent(view.by.id)}`}>{view.by.name}</Link>
        </>
      ) : null}
      {event.task ? (
        <>
          {' '}
          · task <code>{event.task.id}</code>
          {event.task.subject ? <span className="muted"> {event.task.subject}</span> : null}
        </>
      ) : null}
      {event.held ? <span className="badge badge-warning" title={event.held}>kept working</span> : null}
      {view.claim ? (
        <span className="muted" data-testid="team-claim">
          {' '}
          · reported by <strong>{view.claim.reportedBy}</strong>
          {view.claim.teammate !== undefined ? <>, naming “{view.claim.teammate}”</> : null}
          {view.claim.team !== undefined ? <>, team “{view.claim.team}”</> : null}{' '}
          <span className="badge badge-warning" title="The agent wrote these names; AHP could not match them to its own team in the tokens file">
            unverified
          </span>
        </span>
      ) : null}
    </p>
  );
}

export function TimelineItemView({ item, agentId }: { item: TimelineItem; agentId: string }) {
  switch (item.kind) {
    case 'signal': {
      const line = item.line;
      return (
        <>
          <p>
            <IntensityBadge intensity={line.intensity} /> <code>{line.type}</code> from <strong>{line.source}</strong> {line.hook ? (
              <>
                on <code>{line.hook}</code>
              </>
            ) : (
              'outside any hook'
            )}
            {line.rule ? (
              <>
                {' '}
                · rule <code>{line.rule}</code>
              </>
            ) : null}
            {line.config_version ? <span className="muted"> · config v{line.config_version}</span> : null}
            {line.latency_ms !== undefined ? <span className="muted"> · decided in {formatMs(line.latency_ms)}</span> : null}
            {line.hook ? (
              <>
                {' '}
                · <Link href={hookHref(line.correlation_id)} data-testid="hook-link">details</Link>
              </>
            ) : null}
          </p>
          <SignalSubjectView subject={line.subject} />
          {!line.consumed ? <p className="muted">Not answered (yet).</p> : null}
        </>
      );
    }
    case 'response':
      return (
        <p>
          Answered the <IntensityBadge intensity={item.line.intensity} /> signal from <strong>{item.line.source}</strong> with <code>{item.line.action}</code>
        </p>
      );
    case 'event':
      return <EventBody entry={item.entry} />;
    case 'request': {
      const request = item.request;
      const outgoing = request.sender === agentId;
      if (item.phase === 'opened') {
        return (
          <p>
            {outgoing ? (
              <>
                Asked <strong>{target(request)}</strong> for a {REQUEST_LABEL[request.type]}
              </>
            ) : (
              <>
                Asked by <Link href={`/agents/${encodeURIComponent(request.sender)}`}>{request.sender}</Link> for a {REQUEST_LABEL[request.type]}
              </>
            )}{' '}
            <code className="muted">{request.request_id}</code>
            {request.type === 'tool_approval' ? (
              <>
                {' '}
                · tool{' '}
                <code>
                  <VisibleText text={request.payload.tool} />
                </code>
              </>
            ) : null}
            {request.type === 'plan_approval' ? (
              <>
                {' '}
                · “<VisibleText text={request.payload.plan.title} />”
              </>
            ) : null}
          </p>
        );
      }
      return (
        <p>
          {REQUEST_LABEL[request.type]} <RequestStatusBadge status={request.status} />
          {request.decided_by ? (
            <>
              {' '}
              by <strong>{request.decided_by}</strong>
            </>
          ) : null}
          {request.feedback ? (
            <>
              {' '}
              — “<VisibleText text={request.feedback} />”
            </>
          ) : null}
          {request.modified_input ? <span className="muted"> · with an edited input</span> : null}
        </p>
      );
    }
  }
}

export function TimelineEntryRow({ item, agentId }: { item: TimelineItem; agentId: string }) {
  const signalId = item.kind === 'signal' || item.kind === 'response' ? item.line.signal_id : undefined;
  return (
    <li className={`timeline-item timeline-${item.kind}`} data-kind={item.kind} data-signal-id={signalId}>
      <div className="timeline-time">
        <Timestamp at={item.at} />
      </div>
      <div className="timeline-body">
        <TimelineItemView item={item} agentId={agentId} />
      </div>
    </li>
  );
}
