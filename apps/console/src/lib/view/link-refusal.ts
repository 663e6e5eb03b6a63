/**
 * What the /decide page says when a decision link cannot be used: the gateway answers
 * `E_FORBIDDEN` with `details.link` (invalid, expired, used, not_yours), `E_CONFLICT` naming who
 * settled the request, or `E_NOT_FOUND`. Pure, so every case is tested without a browser.
 */
import type { AhpError } from '@ahp/protocol';

export interface LinkNotice {
  /** `settled`: the request was decided (or expired); `refused`: the link itself cannot be used. */
  kind: 'settled' | 'refused';
  title: string;
  text: string;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export function linkNotice(error: AhpError): LinkNotice {
  const details = error.details ?? {};
  if (error.code === 'E_CONFLICT') {
    const status = text(details['status']) ?? 'settled';
    const by = text(details['decided_by']);
    const at = text(details['decided_at']);
    return {
      kind: 'settled',
      title: status === 'expired' ? 'This request expired' : status === 'cancelled' ? 'This request was cancelled' : `Already ${status}`,
      text: by === undefined ? 'Nobody needs to decide it any more.' : `${by} ${status} it${at === undefined ? '' : ` at ${at}`}. Nothing was changed by this link.`,
    };
  }
  if (error.code === 'E_NOT_FOUND') return { kind: 'refused', title: 'Request not found', text: 'It no longer exists, or it belongs to a team your token does not cover.' };
  switch (details['link']) {
    case 'expired':
      return { kind: 'refused', title: 'This link has expired', text: 'Links in notifications work for a short time only. Open the approvals page to decide the request.' };
    case 'used': {
      const by = text(details['used_by']);
      return { kind: 'refused', title: 'This link was used already', text: `Each link works once${by === undefined ? '' : `; ${by} used it`}. Open the approvals page to see the request.` };
    }
    case 'not_yours':
      return {
        kind: 'refused',
        title: 'This link was sent to someone else',
        text: details['required_role'] === 'admin' ? 'It went to the admins; an admin must use it.' : 'It is bound to another operator. You can still decide from the approvals page if your role allows.',
      };
    case 'invalid':
      return { kind: 'refused', title: 'This link is not valid', text: 'It was not issued by this AHP, or it was cut or altered on the way. Nothing was decided.' };
    default:
      return { kind: 'refused', title: 'This link cannot be used', text: error.message };
  }
}
