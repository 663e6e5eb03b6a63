'use client';
/** One request of the queue: what is asked (a plan, a tool call, a shutdown), by whom, how old, until when, and the decision controls. */
import Link from 'next/link';
import { useMemo } from 'react';
import type { ProtocolState } from '@ahp/protocol';
import { formatDeadline, formatTimestamp } from '@/lib/view/format';
import type { DecisionNotice } from '@/lib/view/decision-outcome';
import { requestHiddenText } from '@/lib/view/request-text';
import { visibleText } from '@/lib/view/visible-text';
import { JsonBlock } from '@/components/json-block';
import { HiddenTextWarning, VisibleText } from '@/components/visible-text';
import { PlanView } from '@/components/plan-view';
import { RequestStatusBadge } from '@/components/badges';
import { Ago, Timestamp } from '@/components/time';
import { DecisionForm, type SettledState } from './decision-form';

const TYPE_LABEL: Record<ProtocolState['type'], string> = {
  plan_approval: 'Plan approval',
  tool_approval: 'Tool approval',
  shutdown: 'Shutdown',
  intervention: 'Intervention',
};

export interface Settlement extends SettledState {
  /** What the page says about it. */
  text: string;
}

/** What a settled request ended as: who decided, their feedback, and the input that ran if it was edited. */
function Outcome({ state }: { state: ProtocolState }) {
  if (state.status === 'pending') return null;
  return (
    <div className="request-outcome" data-outcome={state.status}>
      <p>
        <strong>{state.status === 'expired' ? 'Expired' : `${state.status[0]?.toUpperCase()}${state.status.slice(1)}`}</strong>
        {state.decided_by ? ` by ${state.decided_by}` : ' — nobody decided before the deadline'}
        {state.decided_at ? <> at <Timestamp at={state.decided_at} /></> : null}
        {state.feedback ? <>: “{state.feedback}”</> : null}
      </p>
      {state.modified_input ? (
        <div data-edited-input>
          <p>The agent runs this edited input instead:</p>
          <JsonBlock value={state.modified_input} label="Edited input the agent runs" />
        </div>
      ) : null}
    </div>
  );
}

export interface RequestCardProps {
  request: ProtocolState;
  now: number;
  /** Set when the request was decided (by anyone) while on screen. */
  settlement: Settlement | undefined;
  notice: DecisionNotice | undefined;
  /** The operator's id when they may decide; undefined for viewers. */
  deciderId: string | undefined;
  /** The card the keyboard shortcuts act on (j/k move it). */
  selected?: boolean;
  onDecided(notice: DecisionNotice, settled: SettledState | null): void;
  onDismiss(): void;
}

/**
 * What a rule that asked for the approval adds to the payload (its message, the rule, what expiry
 * decides, the session); read loosely so the card shows them whenever the gateway sends them.
 */
function ruleFacts(payload: object): { reason?: string; rule?: string; onExpiry?: string } {
  const extra = payload as Record<string, unknown>;
  const text = (key: string) => (typeof extra[key] === 'string' ? (extra[key] as string) : undefined);
  const facts: { reason?: string; rule?: string; onExpiry?: string } = {};
  const reason = text('reason');
  const rule = text('rule');
  const onExpiry = text('on_expiry');
  if (reason) facts.reason = reason;
  if (rule) facts.rule = rule;
  if (onExpiry) facts.onExpiry = onExpiry;
  return facts;
}

function Payload({ request }: { request: ProtocolState }) {
  switch (request.type) {
    case 'plan_approval':
      return <PlanView plan={request.payload.plan} />;
    case 'tool_approval': {
      const facts = ruleFacts(request.payload);
      return (
        <div className="tool">
          {facts.reason ? (
            <p className="reason">
              <VisibleText text={facts.reason} />
            </p>
          ) : null}
          {facts.rule || facts.onExpiry ? (
            <p className="muted">
              {facts.rule ? (
                <>
                  Rule <code>{facts.rule}</code>
                </>
              ) : null}
              {facts.rule && facts.onExpiry ? ' · ' : null}
              {facts.onExpiry ? `if nobody decides in time: ${facts.onExpiry}` : null}
            </p>
          ) : null}
          <p>
            Tool{' '}
            <code className="tool-name">
              <VisibleText text={request.payload.tool} />
            </code>
            {request.payload.hook_id ? (
              <span className="muted">
                {' '}
                · hook <code>{request.payload.hook_id}</code>
              </span>
            ) : null}
          </p>
          {/* Shown whole, never in a scrolling box: the approve buttons come after all of it. */}
          <JsonBlock value={request.payload.input} label={`Input of ${visibleText(request.payload.tool)}`} />
        </div>
      );
    }
    case 'shutdown':
      return (
        <p>
          {request.payload.reason ? (
            <>
              Reason: <VisibleText text={request.payload.reason} />
            </>
          ) : (
            <span className="muted">No reason given.</span>
          )}
        </p>
      );
    case 'intervention':
      // Approve lets the agent continue (the feedback is its guidance); reject keeps it stopped.
      return (
        <div className="intervention">
          <p>
            Stopped by{' '}
            <code>
              <VisibleText text={request.payload.reason} />
            </code>
            {request.payload.iteration === undefined ? null : <> after iteration {request.payload.iteration}</>}
            {request.payload.plan_step === undefined ? null : (
              <>
                {' '}
                on step{' '}
                <code>
                  <VisibleText text={request.payload.plan_step} />
                </code>
              </>
            )}
            .
          </p>
          <p>
            <VisibleText text={request.payload.summary} />
          </p>
          <p className="muted">Approve to let it continue (your feedback is its guidance); reject to keep it stopped.</p>
        </div>
      );
  }
}

export function RequestCard({ request, now, settlement, notice, deciderId, selected = false, onDecided, onDismiss }: RequestCardProps) {
  const headingId = `req-${request.request_id}`;
  const pending = settlement === undefined;
  const hidden = useMemo(() => requestHiddenText(request), [request]);
  return (
    // Focusable from script only (tabIndex -1): the queue's j/k shortcuts move focus card to card.
    <article
      className={`card request${pending ? '' : ' request-settled'}${selected ? ' request-selected' : ''}`}
      aria-labelledby={headingId}
      aria-current={selected ? 'true' : undefined}
      data-request-id={request.request_id}
      tabIndex={-1}
    >
      <header className="request-head">
        <h2 id={headingId}>
          {TYPE_LABEL[request.type]} from{' '}
          <Link href={`/agents/${encodeURIComponent(request.sender)}`}>{request.sender}</Link>
        </h2>
        <RequestStatusBadge status={pending ? 'pending' : (settlement.status as ProtocolState['status'])} />
      </header>
      <dl className="meta">
        <div>
          <dt>{pending ? 'Waiting' : 'Opened'}</dt>
          <dd>
            <Ago at={request.created_at} now={now} />
          </dd>
        </div>
        <div>
          <dt>Deadline</dt>
          <dd>{request.deadline ? <time dateTime={request.deadline} title={formatTimestamp(request.deadline)}>{formatDeadline(request.deadline, now)}</time> : <span className="muted">none</span>}</dd>
        </div>
        <div>
          <dt>Request</dt>
          <dd>
            <code>{request.request_id}</code>
          </dd>
        </div>
      </dl>
      <HiddenTextWarning report={hidden} />
      <Payload request={request} />
      {notice ? (
        <p className={`notice notice-${notice.tone}`} role={notice.tone === 'success' ? 'status' : 'alert'}>
          {notice.text}
        </p>
      ) : null}
      {!pending && !notice ? (
        <p className="notice notice-warning" role="status">
          {settlement.text}
        </p>
      ) : null}
      {!pending && settlement.state ? <Outcome state={settlement.state} /> : null}
      {pending && deciderId ? <DecisionForm request={request} operatorId={deciderId} onDone={onDecided} /> : null}
      {!pending ? (
        <button type="button" className="button button-quiet" onClick={onDismiss}>
          Dismiss
        </button>
      ) : null}
    </article>
  );
}
