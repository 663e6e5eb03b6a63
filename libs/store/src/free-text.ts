/**
 * Free text is redacted before it is stored: what agents and operators write in events, messages,
 * requests, answers and signal responses may carry a credential (pasted into a plan, a reason, a
 * message to a teammate), and whatever is stored is shown in the console and exported. Each store
 * applies these at its write, so no writer can skip it. The list of fields is in
 * docs/signal-log.md ("Redaction").
 *
 * Left verbatim on purpose: a tool approval's `input` (and `modified_input`), which is what will
 * run — its digest binds the approval to it, and secret-named fields in it are the agent's to
 * keep out (the hook queue blanks those before evaluation).
 */
import { redactFreeText, redactText, type ProtocolResponse, type ProtocolState } from '@ahp/protocol';

/** A new request with its free text redacted: the whole payload, but a tool approval's only `reason`. */
export function redactRequestText(state: ProtocolState): ProtocolState {
  if (state.type === 'tool_approval') {
    const { reason } = state.payload;
    if (reason === undefined) return state;
    const redacted = redactText(reason);
    return redacted === reason ? state : { ...state, payload: { ...state.payload, reason: redacted } };
  }
  const payload = redactFreeText(state.payload);
  return payload === state.payload ? state : ({ ...state, payload } as ProtocolState);
}

/** An answer to a request with its `feedback` redacted (`modified_input` is what will run: kept). */
export function redactResponseText(response: ProtocolResponse): ProtocolResponse {
  if (response.feedback === undefined) return response;
  const feedback = redactText(response.feedback);
  return feedback === response.feedback ? response : { ...response, feedback };
}
