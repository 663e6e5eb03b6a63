/**
 * What a decision attempt means for whoever made it, whether an agent (`response` frame) or an
 * operator (`POST …/decision`): the request's state on success, else one typed error. Both
 * transports map the same outcome the same way, so an agent and the console never disagree on
 * what "already decided" or "conflict" means.
 */
import { makeError, type AhpError, type JsonObject, type ProtocolState } from '@ahp/protocol';
import type { DecideRequestOutcome } from '@ahp/store';

/** A decision attempt, reduced to what the caller is told. */
export type DecideResult =
  | {
      ok: true;
      outcome: 'applied' | 'already_decided';
      state: ProtocolState;
      /** When an agent's permission prompt that waited for this request fell back before the decision (its history's `prompt_fallback`). */
      afterPromptFallback?: string;
    }
  | { ok: false; error: AhpError };

/** Who settled the request and how, for `details` of an error: enough to show "already approved by maria". */
function settledDetails(state: ProtocolState): JsonObject {
  return {
    request_id: state.request_id,
    status: state.status,
    ...(state.decided_by === undefined ? {} : { decided_by: state.decided_by }),
    ...(state.decided_at === undefined ? {} : { decided_at: state.decided_at }),
  };
}

/**
 * Maps the store's outcome: a first or repeated identical decision succeeds (idempotent); a
 * contrary decision after someone else's is `E_CONFLICT` naming the winner; an expired or
 * cancelled request is `E_CONFLICT` too (it was settled, by the clock or its sender); a response
 * of the wrong kind is `E_TYPE_MISMATCH`; an unknown id `E_NOT_FOUND`.
 */
export function decideResult(requestId: string, outcome: DecideRequestOutcome): DecideResult {
  switch (outcome.outcome) {
    case 'applied':
    case 'already_decided':
      return { ok: true, outcome: outcome.outcome, state: outcome.state };
    case 'conflict': {
      const { state } = outcome;
      const by = state.decided_by === undefined ? '' : ` by ${state.decided_by}`;
      return { ok: false, error: makeError('E_CONFLICT', `request ${requestId} was already ${state.status}${by}`, settledDetails(state)) };
    }
    case 'not_pending':
      return {
        ok: false,
        error: makeError('E_CONFLICT', `request ${requestId} is ${outcome.state.status}; there is nothing left to decide`, settledDetails(outcome.state)),
      };
    case 'type_mismatch':
      return {
        ok: false,
        error: makeError('E_TYPE_MISMATCH', `request ${requestId} is a ${outcome.state.type} request; it only accepts a ${outcome.expected}`, {
          request_id: requestId,
          request_type: outcome.state.type,
          expected: outcome.expected,
        }),
      };
    case 'not_found':
      return { ok: false, error: makeError('E_NOT_FOUND', `no request ${requestId}`, { request_id: requestId }) };
  }
}
