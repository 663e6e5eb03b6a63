/**
 * What the approvals page says after an operator's decision: done, or — when someone else decided
 * first — who decided what and when. The request store is first-decision-wins, so a stale click
 * is refused by the gateway (409) or found already decided the same way (200 `already_decided`).
 */
import type { AhpError, RequestDecisionResponse, RequestStatus } from '@ahp/protocol';
import { formatTimestamp } from './format';

export interface DecisionNotice {
  tone: 'success' | 'warning' | 'error';
  text: string;
}

function settled(status: string, decidedBy: string | undefined, decidedAt: string | undefined): string {
  const verb = status === 'expired' ? 'Already expired' : status === 'cancelled' ? `Already cancelled by ${decidedBy ?? 'its sender'}` : `Already ${status} by ${decidedBy ?? 'someone else'}`;
  return `${verb}${decidedAt ? ` at ${formatTimestamp(decidedAt)}` : ''}.`;
}

/** The notice for a successful call, by operator `me`. */
export function noticeForDecision(result: RequestDecisionResponse, me: string, approve: boolean): DecisionNotice {
  const { request } = result;
  if (result.outcome === 'already_decided' && request.decided_by !== me) {
    return { tone: 'warning', text: `${settled(request.status, request.decided_by, request.decided_at)} Your decision was not applied.` };
  }
  const text = approve ? (request.modified_input ? 'Approved with your edited input.' : 'Approved.') : 'Rejected; the agent gets your feedback.';
  if (result.after_prompt_fallback !== undefined) {
    // The coding agent's permission prompt stopped waiting before this decision: it applies to the same call made again.
    return {
      tone: 'warning',
      text: `${text} The agent's permission prompt had already stopped waiting (${formatTimestamp(result.after_prompt_fallback)}); your decision applies when it makes the same call again.`,
    };
  }
  return { tone: 'success', text };
}

/** The notice for a refused call. */
export function noticeForRefusal(error: AhpError): DecisionNotice {
  const details = error.details ?? {};
  if (error.code === 'E_CONFLICT') {
    const status = typeof details['status'] === 'string' ? (details['status'] as RequestStatus) : 'decided';
    const by = typeof details['decided_by'] === 'string' ? details['decided_by'] : undefined;
    const at = typeof details['decided_at'] === 'string' ? details['decided_at'] : undefined;
    return { tone: 'warning', text: `${settled(status, by, at)} Your decision was refused.` };
  }
  if (error.code === 'E_FORBIDDEN') return { tone: 'error', text: `Not allowed: ${error.message}` };
  return { tone: 'error', text: error.message };
}

/** The line shown on a request someone else settled while it was on screen (from a live event or a refresh). */
export function settledBySomeoneElse(status: string, decidedBy: string | undefined, decidedAt: string | undefined): string {
  return settled(status, decidedBy, decidedAt);
}
