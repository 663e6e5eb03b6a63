'use client';
/**
 * The drill-down of a hook the gateway's failure policy decided (docs/console.md "Hook
 * drill-down"): no worker's decision reached the gateway in time (or the job could not be
 * queued), so the trigger's policy answered. Shows the decision and why, what is known of the
 * stages (an unknown stage says so rather than showing 0), and what a worker reported doing with
 * the hook afterwards: skipped it past its deadline, or evaluated it too late (its verdicts and
 * what it would have decided).
 */
import type { DrillDownUnavailable, PolicyHookDrillDown } from '@ahp/protocol';
import { formatMs } from '@/lib/view/format';
import { IntensityBadge } from '@/components/badges';
import { JsonBlock } from '@/components/json-block';
import { Timestamp } from '@/components/time';
import { OracleVerdictTable } from './oracle-verdict-table';

const UNAVAILABLE: Record<DrillDownUnavailable, string> = {
  signals: 'signals (there were none)',
  answers: "the agent's answers",
  delivery: 'the delivery time',
  context: 'the context',
  oracles: 'oracle verdicts (no worker reported an evaluation)',
  queue: 'the queue and worker times (no worker reported picking the job up)',
};

/** Why the policy answered, in words: the deadline, or the queue that could not take the job. */
function cause(drill: PolicyHookDrillDown): string {
  const { code, message } = drill.policy.error;
  return code === 'E_TIMEOUT' ? `no decision within ${formatMs(drill.stages.waited_ms)}` : message;
}

/** One stage of the policy form: its time, or why it is unknown. */
function StageValue({ ms, unknown }: { ms: number | undefined; unknown: string }) {
  return ms === undefined ? <span className="muted">{unknown}</span> : <>{formatMs(ms)}</>;
}

/** What a worker did with the hook once the policy had answered. */
function LateReport({ drill }: { drill: PolicyHookDrillDown }) {
  const late = drill.late;
  if (late === undefined) {
    return (
      <p className="muted" data-testid="late">
        No worker reported this hook: none picked its job up yet, or it is still evaluating (a job picked up after the deadline is skipped and reported).
      </p>
    );
  }
  if (late.outcome === 'skipped') {
    return (
      <p data-testid="late">
        A worker picked the job up at <Timestamp at={new Date(late.picked_at).toISOString()} />, after the deadline, and skipped it: the job waited {formatMs(Math.max(0, late.picked_at - late.enqueued_at))} in the queue.
      </p>
    );
  }
  return (
    <>
      <p data-testid="late">
        A worker evaluated the hook but its decision came {formatMs(Math.max(0, late.finished_at - drill.decided_at))} after the policy&apos;s and was not delivered. It would have{' '}
        {late.allowed ? 'allowed' : 'denied'} the call{late.intensity ? (
          <>
            {' '}
            (<IntensityBadge intensity={late.intensity} />)
          </>
        ) : null} with {late.signals} signal{late.signals === 1 ? '' : 's'}
        {late.decided_by === 'failure_policy' ? ', itself by failure policy (an oracle failed)' : ''}.
      </p>
      <OracleVerdictTable oracles={late.oracles} caption="Oracle verdicts of the late evaluation" />
    </>
  );
}

export function PolicyView({ drill }: { drill: PolicyHookDrillDown }) {
  const { policy, partial, stages } = drill;
  return (
    <>
      <div className="notice notice-warning" role="note" data-testid="partial">
        <strong>Decided by the failure policy: {cause(drill)}.</strong> The trigger&apos;s policy ({policy.policy === 'fail_closed' ? 'fail closed' : 'fail open'}) {policy.allowed ? 'let the call through' : 'denied the call'} with{' '}
        <code>{policy.error.code}</code>. This comes from the hook record (kept
        {partial.expires_at === undefined ? ' for 15 minutes' : <> until <Timestamp at={new Date(partial.expires_at).toISOString()} /></>}). Not available:{' '}
        {partial.unavailable.map((item) => UNAVAILABLE[item]).join(', ')}.
      </div>
      <section aria-labelledby="decision-heading" className="section">
        <h2 id="decision-heading">Decision</h2>
        <dl className="meta meta-wide" data-testid="decision">
          <dt>Outcome</dt>
          <dd>
            {policy.allowed ? null : <IntensityBadge intensity="block" />} {policy.allowed ? 'allowed' : 'denied'}
            <span className="muted"> · by failure policy ({policy.policy === 'fail_closed' ? 'fail closed' : 'fail open'})</span>
          </dd>
          <dt>Error</dt>
          <dd>
            <code>{policy.error.code}</code> {policy.error.message}
          </dd>
          <dt>Configuration</dt>
          <dd>{policy.config_version === undefined ? <span className="muted">not known (no worker evaluated it)</span> : <>version {policy.config_version}</>}</dd>
          <dt>Decided</dt>
          <dd>
            <Timestamp at={new Date(drill.decided_at).toISOString()} />
          </dd>
          <dt>Delivered</dt>
          <dd>
            {drill.delivered_at === undefined ? (
              <span className="muted">not recorded</span>
            ) : (
              <>
                <Timestamp at={new Date(drill.delivered_at).toISOString()} /> <span className="muted">over {drill.delivered_via === 'http' ? 'HTTP' : 'WebSocket'}</span>
              </>
            )}
          </dd>
        </dl>
      </section>
      <section aria-labelledby="stages-heading" className="section">
        <h2 id="stages-heading">Stages</h2>
        <dl className="counts" data-testid="stages">
          <div className="count" title="received → the failure policy's decision stored">
            <dt>Waited for a decision</dt>
            <dd data-stage="waited">{formatMs(stages.waited_ms)}</dd>
          </div>
          <div className="count" title="received → enqueued">
            <dt>Gateway</dt>
            <dd data-stage="gateway">
              <StageValue ms={stages.gateway_ms} unknown="unknown" />
            </dd>
          </div>
          <div className="count" title="enqueued → picked up by a worker">
            <dt>Queue wait</dt>
            <dd data-stage="queue">
              <StageValue ms={stages.queue_ms} unknown="unknown: no worker reported it" />
            </dd>
          </div>
          <div className="count" title="picked up → the worker's too-late decision">
            <dt>Worker</dt>
            <dd data-stage="worker">
              <StageValue ms={stages.worker_ms} unknown={drill.late?.outcome === 'skipped' ? 'none: skipped' : 'unknown'} />
            </dd>
          </div>
          <div className="count" title="decision stored → sent to the agent">
            <dt>Delivery</dt>
            <dd data-stage="delivery">
              <StageValue ms={stages.delivery_ms} unknown="not recorded" />
            </dd>
          </div>
        </dl>
      </section>
      <section aria-labelledby="late-heading" className="section">
        <h2 id="late-heading">What the worker did</h2>
        <LateReport drill={drill} />
        {partial.rules === undefined || partial.rules.length === 0 ? null : (
          <p className="muted">
            Rules the late evaluation fired:{' '}
            {partial.rules.map((rule, index) => (
              <span key={rule}>
                {index > 0 ? ', ' : null}
                <code>{rule}</code>
              </span>
            ))}
            .
          </p>
        )}
      </section>
      <section aria-labelledby="context-heading" className="section">
        <h2 id="context-heading">Context</h2>
        {policy.context === undefined ? (
          <p className="muted">{policy.context_omitted === 'too_large' ? 'Left out: larger than 16 KiB.' : 'Not recorded: only a worker that evaluated the hook writes its replay-log entry.'}</p>
        ) : (
          <JsonBlock value={policy.context} label="Hook context" />
        )}
      </section>
    </>
  );
}
