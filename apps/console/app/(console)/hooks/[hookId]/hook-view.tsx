'use client';
/**
 * The drill-down of one hook (docs/console.md "Hook drill-down"): the decision, where the time went
 * (gateway, queue wait, worker, delivery), every oracle's verdict, the signals with their rules and
 * the agent's answers, and the context the oracles saw (secrets redacted). Reached from a signal
 * row or a timeline entry; re-read when the live feed says this agent's signals were answered.
 * A hook without signals has a partial one (from an agent's last decision), marked as such; a
 * hook the gateway's failure policy decided has its own form (policy-view.tsx).
 * A traced hook shows its trace id, linked into the operators' tracing UI when AHP_TRACE_URL says where.
 */
import Link from 'next/link';
import { isPolicyDrillDown, type DrillDownPartial, type DrillDownUnavailable, type HookDrillDown, type OperatorLiveEvent } from '@ahp/protocol';
import { fetchHookDrillDown } from '@/lib/api/hooks';
import { ApiError } from '@/lib/api/client';
import { useResource } from '@/lib/live/use-resource';
import { formatMs } from '@/lib/view/format';
import { stageRows } from '@/lib/view/hook-stages';
import { traceLink } from '@/lib/view/trace-link';
import { IntensityBadge } from '@/components/badges';
import { JsonBlock } from '@/components/json-block';
import { Empty, ErrorState, Loading, StaleNotice } from '@/components/states';
import { Timestamp } from '@/components/time';
import { OracleVerdictTable } from './oracle-verdict-table';
import { PolicyView } from './policy-view';

/** The hook's trace: each stage above is one of its spans, with the same start and end. */
function Trace({ traceId, traceUrl }: { traceId: string | undefined; traceUrl: string | undefined }) {
  const link = traceLink(traceId, traceUrl);
  if (link === undefined) return null;
  return (
    <p className="muted" data-testid="trace">
      Trace{' '}
      {link.href === undefined ? (
        <code>{link.traceId}</code>
      ) : (
        <a href={link.href} target="_blank" rel="noopener noreferrer">
          <code>{link.traceId}</code>
        </a>
      )}
      : each stage is one of its spans, with the same start and end.
    </p>
  );
}

function Stages({ drill, traceUrl }: { drill: HookDrillDown; traceUrl: string | undefined }) {
  const { rows, totalMs } = stageRows(drill.stages);
  return (
    <section aria-labelledby="stages-heading" className="section">
      <h2 id="stages-heading">Latency by stage</h2>
      <p className="muted">
        {formatMs(totalMs)} from the hook reaching the gateway to {drill.delivered_at === undefined ? 'its decision being stored (delivery not recorded)' : 'the decision reaching the agent'}.
      </p>
      <div className="stage-bar" role="img" aria-label={rows.map((row) => `${row.label} ${formatMs(row.ms)}`).join(', ')}>
        {rows.map((row) => (row.share > 0 ? <span key={row.key} className={`stage stage-${row.key}`} style={{ flexGrow: row.share }} title={`${row.label}: ${formatMs(row.ms)}`} /> : null))}
      </div>
      <dl className="counts" data-testid="stages">
        {rows.map((row) => (
          <div className="count" key={row.key} title={row.spans}>
            <dt>
              <span className={`stage-dot stage-${row.key}`} aria-hidden="true" /> {row.label}
            </dt>
            <dd data-stage={row.key}>{formatMs(row.ms)}</dd>
          </div>
        ))}
      </dl>
      <Trace traceId={drill.trace_id} traceUrl={traceUrl} />
    </section>
  );
}

function Oracles({ drill }: { drill: HookDrillDown }) {
  return <OracleVerdictTable oracles={drill.detail.oracles} caption="Oracle verdicts" />;
}

function Signals({ drill }: { drill: HookDrillDown }) {
  return (
    <div className="table-scroll">
      <table className="table table-cards" data-testid="signals">
        <caption>Signals and answers</caption>
        <thead>
          <tr>
            <th scope="col">Intensity</th>
            <th scope="col">Oracle / rule</th>
            <th scope="col">Type</th>
            <th scope="col">Message</th>
            <th scope="col">Agent&apos;s answer</th>
          </tr>
        </thead>
        <tbody>
          {drill.detail.signals.map((signal) => {
            const answer = drill.answers[signal.signal_id];
            return (
              <tr key={signal.signal_id}>
                <td data-label="Intensity">
                  <IntensityBadge intensity={signal.intensity} />
                </td>
                <th scope="row" data-label="Oracle / rule">
                  {signal.source}
                  {signal.rule ? (
                    <>
                      {' '}
                      · rule <code>{signal.rule}</code>
                    </>
                  ) : null}
                </th>
                <td data-label="Type">
                  <code>{signal.type}</code>
                </td>
                <td data-label="Message">{signal.message ?? <span className="muted">–</span>}</td>
                <td data-label="Agent's answer" data-testid="answer">
                  {answer ? (
                    <>
                      <code>{answer.action}</code> <span className="muted">at</span> <Timestamp at={answer.consumed_at} />
                    </>
                  ) : (
                    <span className="muted">unanswered</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

const UNAVAILABLE: Record<DrillDownUnavailable, string> = {
  signals: 'signals (there were none)',
  answers: "the agent's answers",
  delivery: 'the delivery time',
  context: 'the context',
  oracles: 'oracle verdicts',
  queue: 'the queue times',
};

/** What a partial drill-down is built from and what it lacks. */
function PartialNotice({ partial }: { partial: DrillDownPartial }) {
  return (
    <div className="notice notice-info" role="note" data-testid="partial">
      <strong>Partial drill-down: this hook sent no signals.</strong> It comes from the hook record (kept
      {partial.expires_at === undefined ? ' for 15 minutes' : <> until <Timestamp at={new Date(partial.expires_at).toISOString()} /></>}) and the replay log. Not available:{' '}
      {partial.unavailable.map((item) => UNAVAILABLE[item]).join(', ')}.
    </div>
  );
}

/** The context section's text when there is no context to show. */
function contextMissing(omitted: HookDrillDown['detail']['context_omitted']): string {
  return omitted === 'not_recorded' ? 'Not recorded: the replay log has no entry for this hook (logging off, trimmed, or not written yet).' : 'Left out: larger than 16 KiB.';
}

export function HookView({ hookId, traceUrl }: { hookId: string; traceUrl?: string }) {
  const drill = useResource(`hook:${hookId}`, (signal) => fetchHookDrillDown(hookId, signal), {
    refreshOn: (event: OperatorLiveEvent) => event.kind === 'signals',
    debounceMs: 1_000,
  });
  const notFound = drill.error instanceof ApiError && drill.error.error.code === 'E_NOT_FOUND';
  const data = drill.data;
  const policy = data !== undefined && isPolicyDrillDown(data) ? data : undefined;
  const evaluated = data !== undefined && !isPolicyDrillDown(data) ? data : undefined;
  const about = policy?.policy ?? evaluated?.detail;
  return (
    <>
      <div className="page-head">
        <h1>
          Hook <code>{hookId.slice(0, 8)}</code>
        </h1>
        {data && about ? (
          <p className="muted">
            <code>{about.trigger}</code> by <Link href={`/agents/${encodeURIComponent(about.agent_id)}`}>{about.agent_id}</Link>, session <code>{about.session_id}</code>, received{' '}
            <Timestamp at={new Date(data.received_at).toISOString()} />
          </p>
        ) : null}
      </div>
      {drill.status === 'loading' ? <Loading label="Loading the hook" /> : null}
      {notFound ? (
        <Empty title="No drill-down for this hook.">
          Hooks that sent signals keep one for 24 hours, other hooks a partial one for 15 minutes once decided (by a worker or by the failure policy); a team-scoped token sees its teams&apos; hooks only.
        </Empty>
      ) : drill.status === 'error' && drill.error ? (
        <ErrorState title="Could not load the hook." error={drill.error} onRetry={drill.reload} />
      ) : null}
      {data && drill.error ? <StaleNotice error={drill.error} onRetry={drill.reload} /> : null}
      {policy ? <PolicyView drill={policy} /> : null}
      {evaluated ? (
        <>
          {evaluated.partial ? <PartialNotice partial={evaluated.partial} /> : null}
          <section aria-labelledby="decision-heading" className="section">
            <h2 id="decision-heading">Decision</h2>
            <dl className="meta meta-wide" data-testid="decision">
              <dt>Outcome</dt>
              <dd>
                {evaluated.detail.intensity ? <IntensityBadge intensity={evaluated.detail.intensity} /> : null} {evaluated.detail.allowed ? 'allowed' : 'denied'}
                {evaluated.detail.decided_by === 'failure_policy' ? <span className="muted"> · by failure policy</span> : null}
              </dd>
              <dt>Configuration</dt>
              <dd>{evaluated.detail.config_version === undefined ? <span className="muted">built-in defaults</span> : <>version {evaluated.detail.config_version}</>}</dd>
              <dt>Delivered</dt>
              <dd>
                {evaluated.delivered_at === undefined ? (
                  <span className="muted">not recorded</span>
                ) : (
                  <>
                    <Timestamp at={new Date(evaluated.delivered_at).toISOString()} /> <span className="muted">over {evaluated.delivered_via === 'http' ? 'HTTP' : 'WebSocket'}</span>
                  </>
                )}
              </dd>
            </dl>
            {evaluated.detail.modifications.length > 0 ? <JsonBlock value={evaluated.detail.modifications} label="Modifications applied" /> : null}
          </section>
          <Stages drill={evaluated} traceUrl={traceUrl} />
          <section aria-labelledby="oracles-heading" className="section">
            <h2 id="oracles-heading">Oracles and signals</h2>
            <Oracles drill={evaluated} />
            {evaluated.partial ? (
              <p className="muted" data-testid="no-signals">
                No signals.{' '}
                {evaluated.partial.rules === undefined ? null : evaluated.partial.rules.length === 0 ? (
                  'No rule fired.'
                ) : (
                  <>
                    Rules that fired: {evaluated.partial.rules.map((rule, index) => (
                      <span key={rule}>
                        {index > 0 ? ', ' : null}
                        <code>{rule}</code>
                      </span>
                    ))}
                    .
                  </>
                )}
              </p>
            ) : (
              <Signals drill={evaluated} />
            )}
          </section>
          <section aria-labelledby="context-heading" className="section">
            <h2 id="context-heading">Context</h2>
            <p className="muted">What the oracles evaluated; secret-named fields and credentials in text are redacted.</p>
            {evaluated.detail.context === undefined ? <p className="muted">{contextMissing(evaluated.detail.context_omitted)}</p> : <JsonBlock value={evaluated.detail.context} label="Hook context" />}
          </section>
        </>
      ) : null}
    </>
  );
}
