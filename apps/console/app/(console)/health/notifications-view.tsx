'use client';
/**
 * Notifications on the health page: the newest deliveries (channel, request, status, attempts) and
 * the dead-letter list. Shown to fleet-wide admins only, the ones the API answers; re-read when a
 * request changes (a new one is what gets announced) and on demand.
 */
import { useState } from 'react';
import type { NotificationDeadLetter, NotificationDelivery } from '@ahp/protocol';
import { fetchNotificationDeliveries } from '@/lib/api/notifications';
import { replayDeadLetter } from '@/lib/api/links';
import { useMayPublish } from '@/components/operator-context';
import { useNow, useResource } from '@/lib/live/use-resource';
import { Empty, ErrorState, Loading, StaleNotice, describeError } from '@/components/states';
import { Ago } from '@/components/time';

const STATUS_BADGE: Readonly<Record<NotificationDelivery['status'], string>> = {
  pending: 'badge badge-request-pending',
  delivered: 'badge badge-request-approved',
  dead: 'badge badge-request-rejected',
  skipped: 'badge',
};

function lastAttempt(delivery: NotificationDelivery): string {
  const last = delivery.attempts.at(-1);
  if (last === undefined) return 'not tried yet';
  return last.ok ? `${last.status_code ?? 'ok'}` : (last.error ?? 'failed');
}

/**
 * Queues a dead delivery again (POST …/dead-letters/:id/replay, audited). The workers retry it
 * with its attempts counted from zero; a request that no longer waits is not announced.
 */
function ReplayButton({ letter, onReplayed }: { letter: NotificationDeadLetter; onReplayed: () => void }) {
  const [state, setState] = useState<{ kind: 'idle' | 'busy' | 'done' } | { kind: 'error'; message: string }>({ kind: 'idle' });
  const replay = async () => {
    setState({ kind: 'busy' });
    try {
      await replayDeadLetter(letter.delivery_id);
      setState({ kind: 'done' });
      onReplayed();
    } catch (error) {
      setState({ kind: 'error', message: error instanceof Error ? describeError(error) : String(error) });
    }
  };
  if (state.kind === 'done') return <span role="status">queued again</span>;
  return (
    <>
      <button type="button" className="button button-quiet" onClick={() => void replay()} disabled={state.kind === 'busy'} aria-label={`Replay the delivery of ${letter.request_id} to ${letter.channel}`}>
        {state.kind === 'busy' ? 'Replaying…' : 'Replay'}
      </button>
      {state.kind === 'error' ? <span role="alert"> {state.message}</span> : null}
    </>
  );
}

function DeliveriesTables() {
  const resource = useResource('notification-deliveries', (signal) => fetchNotificationDeliveries(signal), { refreshOn: (event) => event.kind === 'request', debounceMs: 2_000 });
  const now = useNow(5_000);
  const data = resource.data;
  return (
    <>
      {resource.status === 'loading' ? <Loading label="Loading notification deliveries" /> : null}
      {resource.status === 'error' && resource.error ? <ErrorState title="Could not load notification deliveries." error={resource.error} onRetry={resource.reload} /> : null}
      {data && resource.error ? <StaleNotice error={resource.error} onRetry={resource.reload} /> : null}
      {data ? (
        data.deliveries.length === 0 ? (
          <Empty title="No notification sent yet.">Channels and routes are set in the notifications section of hooks.yaml (docs/notifications.md).</Empty>
        ) : (
          <div className="table-scroll">
            <table className="table table-cards">
              <caption className="visually-hidden">Recent notification deliveries</caption>
              <thead>
                <tr>
                  <th scope="col">Channel</th>
                  <th scope="col">Request</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Queued</th>
                </tr>
              </thead>
              <tbody>
                {data.deliveries.map((delivery) => (
                  <tr key={delivery.delivery_id}>
                    <th scope="row" data-label="Channel">
                      <code>{delivery.channel}</code> <span className="muted">{delivery.channel_type}</span>
                    </th>
                    <td data-label="Request">
                      <code>{delivery.request_id}</code> <span className="muted">{delivery.request_type}</span>
                    </td>
                    <td data-label="Status">
                      <span className={STATUS_BADGE[delivery.status]}>{delivery.status}</span>
                      {delivery.tier ? <span className="muted"> escalation {delivery.tier}</span> : null}
                      {delivery.replayed_by?.length ? <span className="muted"> replayed by {delivery.replayed_by.join(', ')}</span> : null}
                    </td>
                    <td data-label="Attempts">{delivery.attempts.length}</td>
                    <td data-label="Last answer">{lastAttempt(delivery)}</td>
                    <td data-label="Queued">
                      <Ago at={delivery.created_at} now={now} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
      {data && data.dead_letters.length > 0 ? (
        <>
          <h3 id="dead-letters-heading">Dead letters</h3>
          <ul aria-labelledby="dead-letters-heading" className="compact-list">
            {data.dead_letters.map((letter) => (
              <li key={`${letter.delivery_id}-${letter.at}`}>
                <code>{letter.channel}</code> · <code>{letter.request_id}</code> · {letter.attempts} attempts · {letter.error} · <Ago at={letter.at} now={now} />{' '}
                <ReplayButton letter={letter} onReplayed={resource.reload} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}

export function NotificationsView() {
  // The same gate as the API: an admin with a fleet-wide token.
  const allowed = useMayPublish();
  if (!allowed) return null;
  return (
    <section aria-labelledby="notifications-heading" className="section">
      <h2 id="notifications-heading">Notifications</h2>
      <DeliveriesTables />
    </section>
  );
}
