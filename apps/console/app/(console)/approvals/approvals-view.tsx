'use client';
/**
 * The approval queue: pending requests addressed to operators, oldest first. It re-reads the queue
 * on every live `request` event; a request decided while on screen stays visible, saying who
 * decided what and when, until the operator dismisses it — so nobody acts on a stale card
 * without knowing, and a stale click is refused by the gateway anyway.
 *
 * Above the cards, the pending requests counted by agent: one agent opening many stands out, and
 * a click narrows the queue to one agent (read from the gateway, so none of that agent's is left
 * out by the list's limit).
 */
import { useEffect, useRef, useState } from 'react';
import { MAX_LIST_LIMIT, type ProtocolState } from '@ahp/protocol';
import { fetchApprovalQueue, fetchRequest } from '@/lib/api/requests';
import { useLiveEvents } from '@/lib/live/live-provider';
import { useNow, useResource } from '@/lib/live/use-resource';
import { settledBySomeoneElse, type DecisionNotice } from '@/lib/view/decision-outcome';
import { formatTimestamp } from '@/lib/view/format';
import { QUEUE_SHORTCUTS, moveSelection, queueShortcut } from '@/lib/view/queue-shortcuts';
import { mayDecide, useOperator, useRoleAllows } from '@/components/operator-context';
import { Empty, ErrorState, Loading, StaleNotice } from '@/components/states';
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
  const [agentFilter, setAgentFilter] = useState<string | null>(null);
  const queue = useResource(`approval-queue:${agentFilter ?? ''}`, (signal) => fetchApprovalQueue(signal, agentFilter ?? undefined), {
    refreshOn: (event) => event.kind === 'request',
    debounceMs: 150,
  });
  const now = useNow(5_000);
  const [known, setKnown] = useState<Record<string, ProtocolState>>({});
  const [settlements, setSettlements] = useState<Record<string, Settlement>>({});
  const [notices, setNotices] = useState<Record<string, DecisionNotice>>({});
  const [dismissed, setDismissed] = useState<Record<string, true>>({});
  const [selected, setSelected] = useState<string | null>(null);
  const [shortcutNote, setShortcutNote] = useState<string | null>(null);
  const help = useRef<HTMLDetailsElement>(null);

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
    .filter((request) => agentFilter === null || request.sender === agentFilter)
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  const pendingCount = shown.filter((request) => settlements[request.request_id] === undefined).length;
  const shownIds = shown.map((request) => request.request_id);
  const bySender = [...(queue.data ?? []).reduce((counts, request) => counts.set(request.sender, (counts.get(request.sender) ?? 0) + 1), new Map<string, number>())].sort(
    (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
  );

  // The queue's keyboard shortcuts (src/lib/view/queue-shortcuts.ts): j/k select a card, a approves
  // it, r puts the cursor in its feedback field (Ctrl+Enter there rejects), ? opens the list. They
  // act through the card's own buttons, so a shortcut does exactly what the click would.
  const shortcuts = useRef({ shownIds, selected });
  shortcuts.current = { shownIds, selected };
  useEffect(() => {
    const cardOf = (id: string) => document.querySelector<HTMLElement>(`article[data-request-id="${CSS.escape(id)}"]`);
    const onKey = (event: KeyboardEvent) => {
      const action = queueShortcut(event, event.target instanceof Element ? (event.target as HTMLElement) : null);
      if (action === null) return;
      const { shownIds: ids, selected: current } = shortcuts.current;
      if (action === 'help') {
        event.preventDefault();
        const list = help.current;
        if (list) {
          list.open = !list.open;
          if (list.open) list.querySelector('summary')?.focus();
        }
        return;
      }
      if (action === 'next' || action === 'previous') {
        event.preventDefault();
        const next = moveSelection(ids, current, action);
        setSelected(next);
        setShortcutNote(null);
        if (next !== null) {
          const card = cardOf(next);
          card?.focus({ preventScroll: true });
          card?.scrollIntoView({ block: 'nearest' });
        }
        return;
      }
      const card = current !== null && ids.includes(current) ? cardOf(current) : null;
      if (!card) {
        setShortcutNote('Select a card first: j (next) or k (previous).');
        return;
      }
      event.preventDefault();
      if (action === 'approve') {
        const button = card.querySelector<HTMLButtonElement>('button[data-action="approve"]');
        const warning = card.querySelector<HTMLElement>('[data-hidden-text-warning]');
        // A request with hidden characters is approved by its button only, once the operator has read it.
        if (warning) {
          warning.scrollIntoView({ block: 'nearest' });
          setShortcutNote('This request contains hidden or unusual characters: read it, then approve with its Approve button (a does not approve it).');
        } else if (button && !button.disabled) button.click();
        else setShortcutNote('This card cannot be approved from here (already settled, or not yours to decide).');
      } else {
        const feedback = card.querySelector<HTMLTextAreaElement>('textarea[data-field="feedback"]');
        if (feedback) feedback.focus();
        else setShortcutNote('This card cannot be rejected from here (already settled, or not yours to decide).');
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

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
      <details className="shortcuts" ref={help} data-testid="queue-shortcuts">
        <summary>Keyboard shortcuts (press ?)</summary>
        <dl className="shortcut-list">
          {QUEUE_SHORTCUTS.map((shortcut) => (
            <div key={shortcut.keys}>
              <dt>
                <kbd>{shortcut.keys}</kbd>
              </dt>
              <dd>{shortcut.does}</dd>
            </div>
          ))}
        </dl>
        <p className="hint">Off while the cursor is in a field, so typing feedback or an edited input never triggers them.</p>
      </details>
      {shortcutNote ? (
        <p className="notice notice-info" role="status">
          {shortcutNote}
        </p>
      ) : null}
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
      {bySender.length > 1 || agentFilter !== null ? (
        <nav className="queue-by-agent" aria-label="Pending requests by agent" data-testid="queue-by-agent">
          <span className="muted">{agentFilter === null ? 'Pending by agent:' : `Only ${agentFilter}'s requests.`}</span>{' '}
          {agentFilter !== null ? (
            <button type="button" className="link-button" onClick={() => setAgentFilter(null)}>
              Show every agent
            </button>
          ) : (
            bySender.map(([sender, count]) => (
              <button key={sender} type="button" className="link-button" data-agent-id={sender} onClick={() => setAgentFilter(sender)}>
                {sender} ({count})
              </button>
            ))
          )}
        </nav>
      ) : null}
      {queue.data && queue.data.length >= MAX_LIST_LIMIT ? (
        <p className="notice notice-info" role="note">
          The queue lists the {MAX_LIST_LIMIT} oldest pending requests{agentFilter === null ? '' : ` of ${agentFilter}`}; newer ones wait beyond them. Decide or narrow to one agent to see the rest.
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
              selected={selected === request.request_id}
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
