'use client';
/**
 * Every settled request addressed to operators, newest first: what was asked, who decided and
 * when, the feedback and the edited input. Narrowed with the operator API's own filters (a
 * scoped operator only ever gets its teams' requests), re-read when a request changes, and
 * exportable as CSV or JSON exactly as shown.
 */
import { useState, type FormEvent } from 'react';
import type { ProtocolState } from '@ahp/protocol';
import { fetchRequestHistory, type HistoryFilters } from '@/lib/api/requests';
import { useResource } from '@/lib/live/use-resource';
import { historyCsv, historyRow } from '@/lib/view/request-history';
import { RequestStatusBadge } from '@/components/badges';
import { Empty, ErrorState, Loading, StaleNotice } from '@/components/states';
import { Timestamp } from '@/components/time';
import { ApprovalsTabs } from '../approvals-tabs';
import { VisibleText } from '@/components/visible-text';

const STATUSES: readonly HistoryFilters['status'][] = ['settled', 'approved', 'rejected', 'expired', 'cancelled'];
const TYPES: readonly ProtocolState['type'][] = ['tool_approval', 'plan_approval', 'intervention', 'shutdown'];

/** Hands `text` to the browser as a file download. */
function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

export function HistoryView() {
  const [filters, setFilters] = useState<HistoryFilters>({ status: 'settled' });
  const [draft, setDraft] = useState<HistoryFilters>(filters);
  const key = JSON.stringify(filters);
  const history = useResource(`history:${key}`, (signal) => fetchRequestHistory(filters, signal), { refreshOn: (event) => event.kind === 'request', debounceMs: 300 });
  const rows = (history.data ?? []).map(historyRow);

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const agent = draft.agent?.trim();
    const team = draft.team?.trim();
    setFilters({ status: draft.status, ...(draft.type ? { type: draft.type } : {}), ...(agent ? { agent } : {}), ...(team ? { team } : {}) });
  };
  const stamp = new Date().toISOString().replaceAll(':', '-').slice(0, 19);

  return (
    <>
      <div className="page-head">
        <h1>Approvals history</h1>
        <p className="muted">Every decided, expired or cancelled request addressed to operators, newest first (up to 500).</p>
      </div>
      <ApprovalsTabs current="/approvals/history" />
      <form className="filters card" onSubmit={apply} aria-label="History filters">
        <div className="field">
          <label htmlFor="h-status">Outcome</label>
          <select id="h-status" value={draft.status} onChange={(event) => setDraft({ ...draft, status: event.target.value as HistoryFilters['status'] })}>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status === 'settled' ? 'Any outcome' : status}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="h-type">Type</label>
          <select id="h-type" value={draft.type ?? ''} onChange={(event) => setDraft({ ...draft, ...(event.target.value ? { type: event.target.value as ProtocolState['type'] } : { type: undefined }) })}>
            <option value="">Any type</option>
            {TYPES.map((type) => (
              <option key={type} value={type}>
                {type.replace('_', ' ')}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="h-agent">Agent</label>
          <input id="h-agent" value={draft.agent ?? ''} onChange={(event) => setDraft({ ...draft, agent: event.target.value })} placeholder="agent id" />
        </div>
        <div className="field">
          <label htmlFor="h-team">Team</label>
          <input id="h-team" value={draft.team ?? ''} onChange={(event) => setDraft({ ...draft, team: event.target.value })} placeholder="team" />
        </div>
        <button type="submit" className="button">
          Apply
        </button>
      </form>
      {history.status === 'loading' ? <Loading label="Loading the approvals history" /> : null}
      {history.status === 'error' && history.error ? <ErrorState title="Could not load the approvals history." error={history.error} onRetry={history.reload} /> : null}
      {history.data && history.error ? <StaleNotice error={history.error} onRetry={history.reload} /> : null}
      {history.data && rows.length === 0 ? <Empty title="No settled request matches.">Decided requests appear here as soon as someone decides them.</Empty> : null}
      {rows.length > 0 ? (
        <>
          <p className="actions">
            <button type="button" className="button" onClick={() => download(`ahp-approvals-${stamp}.csv`, 'text/csv;charset=utf-8', historyCsv(rows))}>
              Export CSV
            </button>{' '}
            <button type="button" className="button" onClick={() => download(`ahp-approvals-${stamp}.json`, 'application/json', `${JSON.stringify(history.data, null, 2)}\n`)}>
              Export JSON
            </button>
          </p>
          <table className="table table-cards" aria-label="Settled requests">
            <thead>
              <tr>
                <th scope="col">Decided</th>
                <th scope="col">Outcome</th>
                <th scope="col">By</th>
                <th scope="col">Request</th>
                <th scope="col">Feedback and edits</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.requestId} data-request-id={row.requestId}>
                  <td data-label="Decided">{row.decidedAt ? <Timestamp at={row.decidedAt} /> : '–'}</td>
                  <td data-label="Outcome">
                    <RequestStatusBadge status={row.status} />
                  </td>
                  <td data-label="By">{row.decidedBy ?? <span className="muted">nobody (deadline passed)</span>}</td>
                  <td data-label="Request">
                    <code>{row.type}</code> from <strong>{row.sender}</strong>: <VisibleText text={row.what} />
                    <br />
                    <code className="muted">{row.requestId}</code>
                  </td>
                  <td data-label="Feedback and edits">
                    {row.feedback ? (
                      <p>
                        “<VisibleText text={row.feedback} />”
                      </p>
                    ) : null}
                    {row.editedInput ? (
                      <p data-edited-input>
                        ran{' '}
                        <code>
                          <VisibleText text={row.editedInput} />
                        </code>{' '}
                        instead of{' '}
                        <code>
                          <VisibleText text={row.input ?? ''} />
                        </code>
                      </p>
                    ) : null}
                    {!row.feedback && !row.editedInput ? <span className="muted">–</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </>
  );
}
