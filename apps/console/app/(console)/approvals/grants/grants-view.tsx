'use client';
/**
 * Session grants still in force (and revoked ones until they expire): an approval given "for the
 * rest of the session" lets later calls through without asking, so operators must see each one
 * and be able to take it back. A revocation holds from the agent's very next hook.
 */
import { useState } from 'react';
import type { ToolGrant } from '@ahp/protocol';
import { fetchGrants, revokeGrant } from '@/lib/api/grants';
import { useNow, useResource } from '@/lib/live/use-resource';
import { formatDeadline } from '@/lib/view/format';
import { useRoleAllows } from '@/components/operator-context';
import { describeError, Empty, ErrorState, Loading, StaleNotice } from '@/components/states';
import { Ago, Timestamp } from '@/components/time';
import { ApprovalsTabs } from '../approvals-tabs';
import { VisibleText } from '@/components/visible-text';

function GrantRow({ grant, now, canRevoke, onRevoked }: { grant: ToolGrant; now: number; canRevoke: boolean; onRevoked(): void }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const revoke = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      await revokeGrant(grant.grant_id);
      onRevoked();
    } catch (error) {
      setProblem(describeError(error instanceof Error ? error : new Error(String(error))));
    } finally {
      setBusy(false);
    }
  };
  return (
    <tr data-grant-id={grant.grant_id} data-revoked={grant.revoked_at ? 'true' : 'false'}>
      <th scope="row" data-label="Agent">
        {grant.agent} <code className="muted">{grant.session_id.slice(0, 12)}</code>
      </th>
      <td data-label="Covers">
        <code>
          <VisibleText text={grant.tool} />
        </code>{' '}
        {grant.scope === 'session' ? (
          <>
            with input{' '}
            <code>
              <VisibleText text={grant.input ? JSON.stringify(grant.input) : (grant.input_digest ?? '')} />
            </code>
          </>
        ) : (
          'with any input'
        )}
        {grant.rules?.length ? <div className="muted">asked by {grant.rules.join(', ')}</div> : null}
      </td>
      <td data-label="Granted">
        by {grant.granted_by} · <Ago at={grant.granted_at} now={now} />
        <div className="muted">
          request <code>{grant.request_id}</code>
        </div>
      </td>
      <td data-label="Uses">{grant.uses}</td>
      <td data-label="State">
        {grant.revoked_at ? (
          <span>
            revoked by {grant.revoked_by ?? 'someone'} at <Timestamp at={grant.revoked_at} />
          </span>
        ) : (
          <span>active, expires {formatDeadline(grant.expires_at, now)}</span>
        )}
        {canRevoke && !grant.revoked_at ? (
          <div>
            <button type="button" className="button button-danger" disabled={busy} onClick={() => void revoke()}>
              Revoke
            </button>
          </div>
        ) : null}
        {problem ? (
          <p className="notice notice-error" role="alert">
            {problem}
          </p>
        ) : null}
      </td>
    </tr>
  );
}

export function GrantsView() {
  const canRevoke = useRoleAllows('approver');
  const grants = useResource('grants', fetchGrants, { refreshOn: (event) => event.kind === 'request', debounceMs: 300 });
  const now = useNow(5_000);
  return (
    <>
      <div className="page-head">
        <h1>Session grants</h1>
        <p className="muted">Approvals given for the rest of an agent&apos;s session, newest first. Revoking one holds from the agent&apos;s next call, on every gateway.</p>
      </div>
      <ApprovalsTabs current="/approvals/grants" />
      {grants.status === 'loading' ? <Loading label="Loading the session grants" /> : null}
      {grants.status === 'error' && grants.error ? <ErrorState title="Could not load the session grants." error={grants.error} onRetry={grants.reload} /> : null}
      {grants.data && grants.error ? <StaleNotice error={grants.error} onRetry={grants.reload} /> : null}
      {grants.data && grants.data.length === 0 ? <Empty title="No session grants.">An approval given “for the rest of the session” shows here until its session ends.</Empty> : null}
      {grants.data && grants.data.length > 0 ? (
        <table className="table table-cards" aria-label="Session grants">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Covers</th>
              <th scope="col">Granted</th>
              <th scope="col">Uses</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {grants.data.map((grant) => (
              <GrantRow key={grant.grant_id} grant={grant} now={now} canRevoke={canRevoke} onRevoked={grants.reload} />
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
