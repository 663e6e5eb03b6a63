/**
 * Free text is redacted before it is stored: what agents and operators write in events, messages,
 * requests, answers and signal responses may carry a credential (pasted into a plan, a reason, a
 * message to a teammate), and whatever is stored is shown in the console and exported. Each store
 * applies these at its write, so no writer can skip it. The list of fields is in
 * docs/signal-log.md ("Redaction").
 *
 * Redaction can make text longer (`token=a` becomes `token=[redacted]`), so each helper keeps what
 * it redacts within the limit of its field (cut and marked, `TRUNCATED` of libs/protocol), and the
 * writers parse the redacted value again before storing it: a record that passed its schema on the
 * way in but not on the way out would fail every later read of it — and every list or sweep that
 * loads it.
 *
 * Left verbatim on purpose: a tool approval's `input` (and `modified_input`), which is what will
 * run — its digest binds the approval to it, and secret-named fields in it are the agent's to
 * keep out (the hook queue blanks those before evaluation).
 */
import { LIMITS, ProtocolStateSchema, redactFreeText, redactTextWithin, type ProtocolResponse, type ProtocolState } from '@ahp/protocol';
import { StoreInputError } from './errors.js';
import { describeIssues } from './validate.js';

/** A new request with its free text redacted: the whole payload, but a tool approval's only `reason`. */
export function redactRequestText(state: ProtocolState): ProtocolState {
  if (state.type === 'tool_approval') {
    const { reason } = state.payload;
    if (reason === undefined) return state;
    const redacted = redactTextWithin(reason, LIMITS.maxText);
    return redacted === reason ? state : { ...state, payload: { ...state.payload, reason: redacted } };
  }
  const payload = redactFreeText(state.payload);
  return payload === state.payload ? state : ({ ...state, payload } as ProtocolState);
}

/** An answer to a request with its `feedback` redacted (`modified_input` is what will run: kept). */
export function redactResponseText(response: ProtocolResponse): ProtocolResponse {
  if (response.feedback === undefined) return response;
  const feedback = redactTextWithin(response.feedback, LIMITS.maxText);
  return feedback === response.feedback ? response : { ...response, feedback };
}

/**
 * A new request, redacted ({@link redactRequestText}) and then checked with ProtocolStateSchema:
 * what is stored is what parses when it is read back. Redaction that still breaks the schema (a
 * credential-like step id, which cannot hold `[redacted]`) is the caller's StoreInputError.
 */
export function redactedRequest(state: ProtocolState): ProtocolState {
  const redacted = redactRequestText(state);
  if (redacted === state) return state;
  const checked = ProtocolStateSchema.safeParse(redacted);
  if (!checked.success) throw new StoreInputError(`invalid request once its credentials are redacted: ${describeIssues(checked.error.issues)}`);
  return checked.data;
}
