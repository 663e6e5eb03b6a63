/**
 * The decision links of one notification attempt: an approve and a reject link, each a signed
 * single-use token (decision-links in `@ahp/store`) in a URL of the console's `/decide` page.
 * Bound to the request, the decision, the channel and tier, and to who may use them: the
 * channel's `operator` when it names one, admins for a tier with `role: admin`, otherwise any
 * operator who may decide the request. They expire after the configured lifetime, and never
 * after the request's own deadline.
 */
import type { DecisionLinks, LinkDecision, ParsedNotificationJobData } from '@ahp/protocol';
import { newLinkId, signDecisionLink } from '@ahp/store';
import { decideUrl } from './message.js';

export interface DecisionLinkMinting {
  readonly secret: string;
  /** How long a link can be used after it was sent. */
  readonly ttlMs: number;
}

/**
 * The links of `job` sent at `sentAt`; none when the job has no console URL to link to.
 * `operator`: whom they are bound to (default: the channel's `operator`, if it names one).
 */
export function mintDecisionLinks(minting: DecisionLinkMinting, job: ParsedNotificationJobData, sentAt: Date, operator = channelOperator(job)): DecisionLinks | undefined {
  const approvals = job.console_url;
  if (approvals === undefined) return undefined;
  const deadline = job.request.deadline === undefined ? Number.POSITIVE_INFINITY : Date.parse(job.request.deadline);
  const expiresMs = Math.min(sentAt.getTime() + minting.ttlMs, deadline);
  // Whole seconds, rounded up so a link never outlives the bound by less than a second's rounding.
  const exp = Math.max(1, Math.ceil(expiresMs / 1000));
  const link = (decision: LinkDecision) =>
    decideUrl(
      approvals,
      signDecisionLink(minting.secret, {
        v: 1,
        jti: newLinkId(),
        request_id: job.request.id,
        decision,
        channel: job.channel,
        tier: job.tier,
        ...(operator === undefined ? {} : { operator }),
        ...(job.role === undefined ? {} : { role: job.role }),
        exp,
      }),
    );
  return { approve: link('approve'), reject: link('reject'), expires_at: new Date(exp * 1000).toISOString() };
}

function channelOperator(job: ParsedNotificationJobData): string | undefined {
  return job.target.type === 'push' ? undefined : job.target.operator;
}
