'use client';
/** The signal log's filters: time window (or a custom range), agent, hook, oracle, intensity. Applying them updates the URL. */
import { useState, type FormEvent } from 'react';
import { HOOK_TRIGGERS, INTENSITIES, type HookTrigger, type Intensity } from '@ahp/protocol';
import { SIGNAL_WINDOWS, fromLocalInput, toLocalInput, type SignalFilterForm, type SignalWindow } from '@/lib/view/signal-filters';

const WINDOW_LABELS: Record<SignalWindow, string> = { '15m': 'Last 15 minutes', '1h': 'Last hour', '6h': 'Last 6 hours', '24h': 'Last 24 hours', '7d': 'Last 7 days', custom: 'Custom range' };

export function SignalFiltersForm({ value, onApply }: { value: SignalFilterForm; onApply(form: SignalFilterForm): void }) {
  const [draft, setDraft] = useState(value);
  const [since, setSince] = useState(toLocalInput(value.since));
  const [until, setUntil] = useState(toLocalInput(value.until));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const next: SignalFilterForm = { window: draft.window };
    if (draft.window === 'custom') {
      const s = fromLocalInput(since);
      const u = fromLocalInput(until);
      if (s) next.since = s;
      if (u) next.until = u;
    }
    const agent = draft.agent?.trim();
    const source = draft.source?.trim();
    if (agent) next.agent = agent;
    if (source) next.source = source;
    if (draft.hook) next.hook = draft.hook;
    if (draft.intensity) next.intensity = draft.intensity;
    onApply(next);
  };

  return (
    <form className="filters card" onSubmit={submit} aria-label="Signal log filters">
      <div className="field">
        <label htmlFor="f-window">Time</label>
        <select id="f-window" value={draft.window} onChange={(event) => setDraft({ ...draft, window: event.target.value as SignalWindow })}>
          {([...Object.keys(SIGNAL_WINDOWS), 'custom'] as SignalWindow[]).map((key) => (
            <option key={key} value={key}>
              {WINDOW_LABELS[key]}
            </option>
          ))}
        </select>
      </div>
      {draft.window === 'custom' ? (
        <>
          <div className="field">
            <label htmlFor="f-since">From</label>
            <input id="f-since" type="datetime-local" value={since} onChange={(event) => setSince(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="f-until">Until</label>
            <input id="f-until" type="datetime-local" value={until} onChange={(event) => setUntil(event.target.value)} />
          </div>
        </>
      ) : null}
      <div className="field">
        <label htmlFor="f-agent">Agent id</label>
        <input id="f-agent" type="text" value={draft.agent ?? ''} onChange={(event) => setDraft({ ...draft, agent: event.target.value })} spellCheck={false} />
      </div>
      <div className="field">
        <label htmlFor="f-hook">Hook</label>
        <select id="f-hook" value={draft.hook ?? ''} onChange={(event) => setDraft({ ...draft, hook: (event.target.value || undefined) as HookTrigger | undefined })}>
          <option value="">any</option>
          {HOOK_TRIGGERS.map((hook) => (
            <option key={hook} value={hook}>
              {hook}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="f-source">Oracle</label>
        <input id="f-source" type="text" value={draft.source ?? ''} onChange={(event) => setDraft({ ...draft, source: event.target.value })} spellCheck={false} />
      </div>
      <div className="field">
        <label htmlFor="f-intensity">Intensity</label>
        <select id="f-intensity" value={draft.intensity ?? ''} onChange={(event) => setDraft({ ...draft, intensity: (event.target.value || undefined) as Intensity | undefined })}>
          <option value="">any</option>
          {INTENSITIES.map((intensity) => (
            <option key={intensity} value={intensity}>
              {intensity}
            </option>
          ))}
        </select>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary">
          Apply filters
        </button>
      </div>
    </form>
  );
}
