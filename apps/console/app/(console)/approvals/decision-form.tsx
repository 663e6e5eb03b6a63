'use client';
/**
 * Approve, reject with feedback, or — for a tool approval — approve with an edited input. The
 * edited input is checked here as a JSON object before it is sent; the gateway checks it again.
 */
import { useId, useMemo, useState, type FormEvent } from 'react';
import type { ApprovalScope, JsonObject, ProtocolState } from '@ahp/protocol';
import { isApiError } from '@/lib/api/client';
import { decideRequest, type Decision } from '@/lib/api/requests';
import { noticeForDecision, noticeForRefusal, type DecisionNotice } from '@/lib/view/decision-outcome';
import { parseJsonObjectInput } from '@/lib/view/json-input';
import { editableJson } from '@/lib/view/visible-json';
import { describeHiddenText } from '@/lib/view/visible-text';
import { describeError } from '@/components/states';

/** How a request was settled, as far as the page knows. */
export interface SettledState {
  status: string;
  decidedBy?: string;
  decidedAt?: string;
  /** The request as settled, when the answer or a re-read carried it (feedback, edited input). */
  state?: ProtocolState;
}

export interface DecisionFormProps {
  request: ProtocolState;
  operatorId: string;
  /** After the call: the notice to show, and the request's state when the answer carried it. */
  onDone(notice: DecisionNotice, settled: SettledState | null): void;
}

export function DecisionForm({ request, operatorId, onDone }: DecisionFormProps) {
  const ids = useId();
  const [feedback, setFeedback] = useState('');
  const [feedbackError, setFeedbackError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  // Hidden characters start as \u escapes: a text area cannot mark them, and a bidi override would reorder the text edited.
  const [edited, setEdited] = useState(() => (request.type === 'tool_approval' ? editableJson(request.payload.input) : ''));
  const [editError, setEditError] = useState<string | null>(null);
  const [busy, setBusy] = useState<null | 'approve' | 'reject' | 'edit'>(null);
  const [scope, setScope] = useState<ApprovalScope>('once');
  // What the edited input would run with that does not show: escapes left in, or characters pasted in.
  const editedHidden = useMemo(() => {
    if (!editing) return null;
    const parsed = parseJsonObjectInput(edited);
    if (!parsed.ok) return null;
    const report = describeHiddenText(parsed.value, 'input');
    return report.count === 0 ? null : report;
  }, [editing, edited]);

  const send = async (decision: Decision, which: 'approve' | 'reject' | 'edit') => {
    setBusy(which);
    try {
      const result = await decideRequest(request.request_id, decision);
      const { request: state } = result;
      onDone(noticeForDecision(result, operatorId, decision.approve), {
        status: state.status,
        ...(state.decided_by ? { decidedBy: state.decided_by } : {}),
        ...(state.decided_at ? { decidedAt: state.decided_at } : {}),
        state,
      });
    } catch (error) {
      if (isApiError(error)) {
        const details = error.error.details ?? {};
        const settled =
          error.error.code === 'E_CONFLICT' && typeof details['status'] === 'string'
            ? {
                status: details['status'],
                ...(typeof details['decided_by'] === 'string' ? { decidedBy: details['decided_by'] } : {}),
                ...(typeof details['decided_at'] === 'string' ? { decidedAt: details['decided_at'] } : {}),
              }
            : null;
        onDone(noticeForRefusal(error.error), settled);
      } else {
        onDone({ tone: 'error', text: describeError(error instanceof Error ? error : new Error(String(error))) }, null);
      }
    } finally {
      setBusy(null);
    }
  };

  const approve = () => void send({ approve: true, feedback, ...(request.type === 'tool_approval' ? { scope } : {}) }, 'approve');
  const reject = () => {
    if (feedback.trim() === '') {
      setFeedbackError('Say why, so the agent can revise: feedback is required to reject.');
      document.getElementById(`${ids}-feedback`)?.focus();
      return;
    }
    setFeedbackError(null);
    void send({ approve: false, feedback }, 'reject');
  };
  const approveEdited = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = parseJsonObjectInput(edited);
    if (!parsed.ok) {
      setEditError(parsed.message);
      document.getElementById(`${ids}-input`)?.focus();
      return;
    }
    setEditError(null);
    const modifiedInput: JsonObject = parsed.value;
    void send({ approve: true, feedback, modifiedInput, scope }, 'edit');
  };

  return (
    <div className="decision">
      <div className="field">
        <label htmlFor={`${ids}-feedback`}>Feedback to the agent</label>
        <textarea
          id={`${ids}-feedback`}
          rows={2}
          value={feedback}
          onChange={(event) => setFeedback(event.target.value)}
          // Ctrl+Enter (⌘+Enter) rejects with the feedback typed: the end of the queue's `r` shortcut.
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && busy === null) {
              event.preventDefault();
              reject();
            }
          }}
          data-field="feedback"
          aria-invalid={feedbackError !== null}
          aria-describedby={`${ids}-feedback-hint${feedbackError ? ` ${ids}-feedback-error` : ''}`}
        />
        <p id={`${ids}-feedback-hint`} className="hint">
          Optional when approving, required when rejecting (Ctrl+Enter rejects).
        </p>
        {feedbackError ? (
          <p id={`${ids}-feedback-error`} className="field-error" role="alert">
            {feedbackError}
          </p>
        ) : null}
      </div>
      {request.type === 'tool_approval' ? (
        <div className="field">
          <label htmlFor={`${ids}-scope`}>An approval covers</label>
          <select id={`${ids}-scope`} value={scope} onChange={(event) => setScope(event.target.value as ApprovalScope)} aria-describedby={`${ids}-scope-hint`}>
            <option value="once">this call only</option>
            <option value="session">this call with this input, for the rest of the session</option>
            <option value="session_tool">any call of {request.payload.tool}, for the rest of the session</option>
          </select>
          <p id={`${ids}-scope-hint`} className="hint">
            A session approval is recorded as a grant that an approver can revoke at any time.
          </p>
        </div>
      ) : null}
      <div className="actions">
        <button type="button" className="button button-primary" onClick={approve} disabled={busy !== null} data-action="approve">
          {busy === 'approve' ? 'Approving…' : 'Approve'}
        </button>
        <button type="button" className="button button-danger" onClick={reject} disabled={busy !== null} data-action="reject">
          {busy === 'reject' ? 'Rejecting…' : 'Reject'}
        </button>
        {request.type === 'tool_approval' ? (
          <button type="button" className="button" aria-expanded={editing} aria-controls={`${ids}-edit`} onClick={() => setEditing((value) => !value)} disabled={busy !== null}>
            Approve with edits
          </button>
        ) : null}
      </div>
      {request.type === 'tool_approval' && editing ? (
        <form id={`${ids}-edit`} className="edit-input" onSubmit={approveEdited} noValidate>
          <label htmlFor={`${ids}-input`}>Edited input for {request.payload.tool} (a JSON object)</label>
          <textarea
            id={`${ids}-input`}
            className="code"
            rows={Math.min(16, Math.max(4, edited.split('\n').length + 1))}
            spellCheck={false}
            value={edited}
            onChange={(event) => setEdited(event.target.value)}
            aria-invalid={editError !== null}
            aria-describedby={editError ? `${ids}-input-error` : undefined}
          />
          {editError ? (
            <p id={`${ids}-input-error`} className="field-error" role="alert">
              {editError}
            </p>
          ) : null}
          {editedHidden ? (
            <p className="hint" data-edited-hidden={editedHidden.count}>
              This input holds {editedHidden.count === 1 ? '1 hidden or unusual character / long whitespace run' : `${editedHidden.count} hidden or unusual characters / long whitespace runs`} (in{' '}
              {editedHidden.places.map((place) => place.path).join(', ')}
              {editedHidden.morePlaces > 0 ? ` and ${editedHidden.morePlaces} more` : ''}): invisible ones are written as <code>\u…</code> escapes above, and run as the characters they stand for.
            </p>
          ) : null}
          <div className="actions">
            <button type="submit" className="button button-primary" disabled={busy !== null}>
              {busy === 'edit' ? 'Approving…' : 'Approve with these edits'}
            </button>
            <button type="button" className="button button-quiet" onClick={() => setEditing(false)} disabled={busy !== null}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
    </div>
  );
}
