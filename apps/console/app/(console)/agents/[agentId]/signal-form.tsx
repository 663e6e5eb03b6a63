'use client';
/**
 * Send the agent a prompt (a warning to heed) or an aid (suggestions), outside any hook. Shown to
 * approvers and admins; the gateway checks the role and the token's teams again.
 */
import { useId, useState, type FormEvent } from 'react';
import type { OperatorSignalBodyInput, Severity, Signal } from '@ahp/protocol';
import { isApiError } from '@/lib/api/client';
import { sendAgentSignal } from '@/lib/api/signals';
import { describeError } from '@/components/states';

type Notice = { tone: 'success' | 'error'; text: string };

const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];

/** The suggestions field: one per non-empty line. */
function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** `onSent` gets the signal the gateway stored: the page re-reads its timeline at once (the signal log keeps the message). */
export function SignalForm({ agentId, onSent }: { agentId: string; onSent?: (signal: Signal) => void }) {
  const ids = useId();
  const [intensity, setIntensity] = useState<'prompt' | 'aid'>('prompt');
  const [message, setMessage] = useState('');
  const [severity, setSeverity] = useState<Severity>('medium');
  const [suggestions, setSuggestions] = useState('');
  const [busy, setBusy] = useState(false);
  const [messageError, setMessageError] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (message.trim() === '') {
      setMessageError(intensity === 'prompt' ? 'Write the message the agent should heed.' : 'Say what happened, so the suggestions make sense.');
      document.getElementById(`${ids}-message`)?.focus();
      return;
    }
    setMessageError(null);
    const body: OperatorSignalBodyInput =
      intensity === 'prompt'
        ? { intensity, message: message.trim(), severity, suggestions: lines(suggestions) }
        : { intensity, reason: message.trim(), suggestions: lines(suggestions).map((description) => ({ type: 'operator', description })) };
    setBusy(true);
    try {
      const result = await sendAgentSignal(agentId, body);
      onSent?.(result.signal);
      setNotice({
        tone: 'success',
        text:
          result.delivery === 'pushed'
            ? `Sent (signal ${result.signal.header.id}). The agent is connected; its answer appears in the timeline.`
            : `Queued (signal ${result.signal.header.id}): the agent is not connected and gets it when it connects, until ${new Date(result.expires_at).toLocaleString()}.`,
      });
      setMessage('');
      setSuggestions('');
    } catch (error) {
      setNotice({ tone: 'error', text: isApiError(error) ? `Not sent: ${error.error.message}` : describeError(error instanceof Error ? error : new Error(String(error))) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="decision" onSubmit={(event) => void submit(event)} noValidate aria-labelledby={`${ids}-heading`}>
      <h3 id={`${ids}-heading`}>Send a signal</h3>
      <div className="field-inline">
        <label htmlFor={`${ids}-intensity`}>Kind</label>
        <select id={`${ids}-intensity`} value={intensity} onChange={(event) => setIntensity(event.target.value as 'prompt' | 'aid')}>
          <option value="prompt">prompt — a warning to heed</option>
          <option value="aid">aid — suggestions</option>
        </select>
        {intensity === 'prompt' ? (
          <>
            <label htmlFor={`${ids}-severity`}>Severity</label>
            <select id={`${ids}-severity`} value={severity} onChange={(event) => setSeverity(event.target.value as Severity)}>
              {SEVERITIES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={`${ids}-message`}>{intensity === 'prompt' ? 'Message' : 'Reason'}</label>
        <textarea
          id={`${ids}-message`}
          rows={2}
          value={message}
          onChange={(event) => setMessage(event.target.value)}
          aria-invalid={messageError !== null}
          aria-describedby={messageError ? `${ids}-message-error` : undefined}
        />
        {messageError ? (
          <p id={`${ids}-message-error`} className="field-error" role="alert">
            {messageError}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={`${ids}-suggestions`}>Suggestions</label>
        <textarea id={`${ids}-suggestions`} rows={2} value={suggestions} onChange={(event) => setSuggestions(event.target.value)} aria-describedby={`${ids}-suggestions-hint`} />
        <p id={`${ids}-suggestions-hint`} className="hint">
          Optional, one per line.
        </p>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Sending…' : 'Send signal'}
        </button>
      </div>
      {notice ? (
        <p className={`notice notice-${notice.tone}`} role="status">
          {notice.text}
        </p>
      ) : null}
    </form>
  );
}
