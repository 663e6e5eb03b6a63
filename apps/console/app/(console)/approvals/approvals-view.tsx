'use client';
/**
 * The approval queue: pending requests addressed to operators, oldest first. It re-reads the queue
 * on every live `request` event; a request decided while on screen stays visible, saying who
 * decided what and when, until the operator dismisses it — so nobody acts on a stale card
 * without knowing, and a stale click is refused by the gateway anyway.
 */
import { useEffect, useState } from 'react';
import type { ProtocolState } from '@ahp/protocol';
import { fetchApprovalQueue, fetchRequest } from '../../../src/lib/api/requests';
import { useLiveEvents } from '../../../src/lib/live/live-provider';
import { useNow, useResource } from '../../../src/lib/live/use-resource';
import { settledBySomeoneElse, type DecisionNotice } from '../../../src/lib/view/decision-outcome';
import { formatTimestamp } from '../../../src/lib/view/format';
import { mayDecide, useOperator, useRoleAllows } from '../../../src/components/operator-context';
import { Empty, ErrorState, Loading, StaleNotice } from '../../../src/components/states';
import { ApprovalsTabs } from './approvals-tabs';
import { PushToggle } from './push-toggle';
import { RequestCard, type Settlement } from './request-card';

function settlementText(status: string, decidedBy: string | undefined, decidedAt: string | undefined, me: string | undefined): string {
  if (decidedBy !== undefined && decidedBy === me) return `You ${status} this${decidedAt ? ` at ${formatTimestamp(decidedAt)}` : ''}.`;
  return settledBySomeoneElse(status, decidedBy, decidedAt);
}

export function ApprovalsView() {
  const operator = useOperator();
  const canDecide = useRoleAllows('approver');
  const queue = useResource('approval-queue', fetchApprovalQueue, { refreshOn: (event) => event.kind === 'request', debounceMs: 150 });
  const now = useNow(5_000);
  const [known, setKnown] = useState<Record<string, ProtocolState>>({});
  const [settlements, setSettlements] = useState<Record<string, Settlement>>({});
  const [notices, setNotices] = useState<Record<string, DecisionNotice>>({});
  const [dismissed, setDismissed] = useState<Record<string, true>>({});

  useEffect(() => {
    const data = queue.data;
    if (!data) return;
    setKnown((previous) => {
      const next = { ...previous };
      for (const request of data) next[request.request_id] = request;
      return next;
    });
  }, [queue.data]);

  const settle = (requestId: string, status: string, decidedBy: string | undefined, decidedAt: string | undefined, state?: ProtocolState) => {
    setSettlements((previous) => {
      // A live event carries no state: keep the one the decision's answer brought, if it agrees.
      const settledState = state ?? (previous[requestId]?.state?.status === status ? previous[requestId]?.state : undefined);
      return {
        ...previous,
        [requestId]: {
          status,
          ...(decidedBy === undefined ? {} : { decidedBy }),
          ...(decidedAt === undefined ? {} : { decidedAt }),
          ...(settledState === undefined ? {} : { state: settledState }),
          text: settlementText(status, decidedBy, decidedAt, operator?.id),
        },
      };
    });
  };

  useLiveEvents((event) => {
    if (event.kind !== 'request' || event.status === 'pending' || event.event === 'refused') return;
    if (known[event.request_id] === undefined) return;
    const decidedBy = event.actor.kind === 'system' ? undefined : event.actor.id;
    settle(event.request_id, event.status, decidedBy, event.at);
    // The event says who and when; the request itself adds the feedback and an edited input.
    fetchRequest(event.request_id)
      .then(({ request }) => {
        if (request.status === event.status) settle(event.request_id, request.status, request.decided_by, request.decided_at ?? event.at, request);
      })
      .catch(() => undefined);
  });

  const pendingIds = new Set((queue.data ?? []).map((request) => request.request_id));
  const shown = Object.values(known)
    .filter((request) => !dismissed[request.request_id] && (pendingIds.has(request.request_id) || settlements[request.request_id] !== undefined))
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  const pendingCount = shown.filter((request) => settlements[request.request_id] === undefined).length;

  return (
    <>
      <div className="page-head">
        <h1>Approvals</h1>
        <p className="muted">
          Plan approvals, tool approvals, interventions and shutdowns addressed to operators, oldest first.
          {queue.data ? ` ${pendingCount} pending.` : ''}
        </p>
        <PushToggle />
      </div>
      <ApprovalsTabs current="/approvals" />
      {!canDecide && operator ? (
        <p className="notice notice-info" role="note">
          You are signed in as a {operator.role}: you can watch the queue, but deciding needs the approver role.
        </p>
      ) : null}
      {canDecide && operator?.scope?.request_types ? (
        <p className="notice notice-info" role="note">
          Your token decides {operator.scope.request_types.join(', ')} requests only; the others show without decide buttons.
        </p>
      ) : null}
      {queue.status === 'loading' ? <Loading label="Loading the approval queue" /> : null}
      {queue.status === 'error' && queue.error ? <ErrorState title="Could not load the approval queue." error={queue.error} onRetry={queue.reload} /> : null}
      {queue.data && queue.error ? <StaleNotice error={queue.error} onRetry={queue.reload} /> : null}
      {queue.data && shown.length === 0 ? (
        <Empty title="Nothing waits for a decision.">Requests that agents address to operators appear here the moment they are opened.</Empty>
      ) : null}
      <ol className="request-list" aria-label="Pending requests">
        {shown.map((request) => (
          <li key={request.request_id}>
            <RequestCard
              request={request}
              now={now}
              settlement={settlements[request.request_id]}
              notice={notices[request.request_id]}
              deciderId={mayDecide(operator, request.type) ? operator?.id : undefined}
              onDecided={(notice, settled) => {
                setNotices((previous) => ({ ...previous, [request.request_id]: notice }));
                if (settled && settled.status !== 'pending') settle(request.request_id, settled.status, settled.decidedBy, settled.decidedAt, settled.state);
                queue.reload();
              }}
              onDismiss={() => setDismissed((previous) => ({ ...previous, [request.request_id]: true }))}
            />
          </li>
        ))}
      </ol>
    </>
  );
}
