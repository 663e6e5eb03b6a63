/**
 * What an agent's last decision was, in words: allowed or denied with its intensity — or, for a
 * call paused on a person's approval, "awaiting approval" until its deadline. That call is not
 * denied: it goes on (or not) when someone decides, so it must not read as a block.
 */
import Link from 'next/link';
import type { FleetLastDecision } from '@ahp/protocol';
import { formatDeadline, formatTimestamp } from '@/lib/view/format';
import { IntensityBadge } from './badges';

export function DecisionSummary({ decision, now }: { decision: FleetLastDecision; now: number }) {
  const waiting = decision.awaiting_approval;
  if (waiting) {
    return (
      <span data-decision="awaiting-approval">
        <Link href="/approvals" className="badge badge-request-pending" title={`tool approval ${waiting.request_id}`}>
          awaiting approval
        </Link>{' '}
        <span className="muted">
          (deadline <time dateTime={waiting.deadline} title={formatTimestamp(waiting.deadline)}>{formatDeadline(waiting.deadline, now)}</time>)
        </span>
      </span>
    );
  }
  return (
    <span data-decision={decision.allowed ? 'allowed' : 'denied'}>
      {decision.allowed ? 'allowed' : 'denied'}
      {decision.intensity ? (
        <>
          {' '}
          <IntensityBadge intensity={decision.intensity} />
        </>
      ) : null}
      {decision.decided_by === 'failure_policy' ? <span className="muted"> (failure policy)</span> : null}
    </span>
  );
}
