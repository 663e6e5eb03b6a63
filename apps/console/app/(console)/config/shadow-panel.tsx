'use client';
/**
 * The shadow configuration (docs/console.md, "Shadow version"): the candidate workers evaluate
 * beside the live version, how often and where it would decide otherwise, recent examples, and
 * (fleet-wide admins) setting, promoting and dropping it. Everyone else reads it.
 *
 * The counters are re-read when the fleet moves (an agent's row changes on every decision) and
 * when the live version changes, debounced, so the rate runs without polling.
 */
import { useEffect, useState, type FormEvent } from 'react';
import type { ShadowStatusResponse } from '@ahp/protocol';
import { dropShadow, fetchShadow, promoteShadow, setShadow } from '@/lib/api/config-shadow';
import { transitionsText } from '@/lib/view/transitions';
import { useResource } from '@/lib/live/use-resource';
import { Empty, ErrorState, Loading } from '@/components/states';
import { ActionOutcomeNotice, actionOutcome, type ActionOutcome } from '@/components/action-outcome';
import { Timestamp } from '@/components/time';

/** "12.5 %" of `part` in `whole`; "—" before anything was evaluated. */
function rate(part: number, whole: number): string {
  if (whole === 0) return '—';
  const percent = (part / whole) * 100;
  return `${percent >= 10 || percent === 0 ? percent.toFixed(0) : percent.toFixed(1)} %`;
}


function ShadowStats({ shadow }: { shadow: ShadowStatusResponse }) {
  return (
    <>
      <dl className="counts" aria-label="Shadow counters">
        <div className="count">
          <dt>Hooks evaluated</dt>
          <dd data-testid="shadow-evaluated">{shadow.evaluated}</dd>
        </div>
        <div className="count">
          <dt>Disagreements</dt>
          <dd data-testid="shadow-disagreements">{shadow.disagreements}</dd>
        </div>
        <div className="count">
          <dt>Disagreement rate</dt>
          <dd data-testid="shadow-rate">{rate(shadow.disagreements, shadow.evaluated)}</dd>
        </div>
        <div className="count">
          <dt>Shadow errors</dt>
          <dd>{shadow.errors}</dd>
        </div>
        <div className="count">
          <dt>Not shadowed (workers busy)</dt>
          <dd data-testid="shadow-skipped">{shadow.skipped_busy}</dd>
        </div>
      </dl>
      {shadow.skipped_busy > 0 ? (
        <p className="notice notice-info" role="note">
          {rate(shadow.skipped_busy, shadow.evaluated + shadow.skipped_busy)} of the hooks were not shadowed: their worker&apos;s shadow slots were all busy, and a worker sheds the shadow&apos;s work, never the live work. The disagreement rate covers the hooks evaluated only.
        </p>
      ) : null}
      <p>
        <span className="muted">Changes:</span> {transitionsText(shadow.transitions)}
      </p>
      <h3 id="shadow-rules-heading">Per rule</h3>
      {shadow.rules.length === 0 ? (
        <p className="muted">No rule has fired in either version yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="table table-cards" aria-labelledby="shadow-rules-heading">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Fired</th>
                <th scope="col">Disagreements</th>
                <th scope="col">Rate of hooks</th>
                <th scope="col">Changes</th>
              </tr>
            </thead>
            <tbody>
              {shadow.rules.map((rule) => (
                <tr key={rule.rule} data-rule={rule.rule}>
                  <th scope="row" data-label="Rule">
                    <code>{rule.rule}</code>
                  </th>
                  <td data-label="Fired">{rule.fired}</td>
                  <td data-label="Disagreements">{rule.disagreements}</td>
                  <td data-label="Rate of hooks">{rate(rule.disagreements, shadow.evaluated)}</td>
                  <td data-label="Changes">{transitionsText(rule.transitions)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3 id="shadow-examples-heading">Recent disagreements</h3>
      {shadow.examples.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="table table-cards" aria-labelledby="shadow-examples-heading">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Agent</th>
                <th scope="col">Trigger</th>
                <th scope="col">Live → shadow</th>
                <th scope="col">Rules</th>
                <th scope="col">Hook</th>
              </tr>
            </thead>
            <tbody>
              {shadow.examples.map((example) => (
                <tr key={example.hook_id} data-hook-id={example.hook_id}>
                  <td data-label="When">
                    <Timestamp at={example.at} />
                  </td>
                  <td data-label="Agent">{example.agent_id}</td>
                  <td data-label="Trigger">{example.trigger}</td>
                  <td data-label="Live → shadow">
                    {example.live} → {example.shadow}
                  </td>
                  <td data-label="Rules">{example.rules.join(', ') || '—'}</td>
                  <td data-label="Hook">
                    <code className="truncate">{example.hook_id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function ShadowPanel({ mayAct, initial, onPromoted, reloadKey = 0 }: { mayAct: boolean; initial: string; onPromoted(): void; reloadKey?: number }) {
  const shadow = useResource('config-shadow', fetchShadow, { refreshOn: (event) => event.kind === 'agent' || event.kind === 'config', debounceMs: 1_000 });
  const { reload } = shadow;
  // Another panel set a shadow (the replay panel's last step): read it again.
  useEffect(() => {
    if (reloadKey > 0) reload();
  }, [reloadKey, reload]);
  const [source, setSource] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);

  const act = async (action: () => Promise<string>) => {
    setBusy(true);
    setOutcome(await actionOutcome(action));
    setBusy(false);
    shadow.reload();
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void act(async () => {
      const result = await setShadow(source);
      return result.unchanged ? `Nothing new: shadow ${result.shadow} already has this text.` : `Shadow ${result.shadow} set; workers evaluate it within seconds.`;
    });
  };
  const current = shadow.data ?? null;

  return (
    <section aria-labelledby="shadow-heading" className="section" data-testid="shadow-panel">
      <div className="section-head">
        <h2 id="shadow-heading">Shadow version</h2>
        <button type="button" className="button button-quiet" onClick={shadow.reload}>
          Refresh
        </button>
      </div>
      <p className="muted">A candidate the workers evaluate beside the live version after every decision; it never decides anything. Promote it when its disagreements are the ones you want.</p>
      {shadow.status === 'loading' ? <Loading label="Loading the shadow version" /> : null}
      {shadow.status === 'error' && shadow.error ? <ErrorState title="Could not load the shadow version." error={shadow.error} onRetry={shadow.reload} /> : null}
      {shadow.status === 'ready' && current === null ? <Empty title="No shadow version.">Set one to see how a candidate would decide on live traffic before publishing it.</Empty> : null}
      {current ? (
        <div className="card">
          <p>
            <strong>Shadow {current.shadow}</strong>{' '}
            <span className="muted">
              set by {current.published_by} · <Timestamp at={current.published_at} />
              {current.live_version === null ? '' : ` · live was v${current.live_version}`}
            </span>
          </p>
          <ShadowStats shadow={current} />
          <details>
            <summary>hooks.yaml of shadow {current.shadow}</summary>
            <pre className="source" tabIndex={0} aria-label={`hooks.yaml of shadow ${current.shadow}`}>
              {current.source}
            </pre>
          </details>
          {mayAct ? (
            <div className="actions">
              <button
                type="button"
                className="button button-primary"
                disabled={busy}
                onClick={() =>
                  void act(async () => {
                    const result = await promoteShadow(current.shadow);
                    onPromoted();
                    return result.unchanged ? `Shadow ${result.shadow} had the live text (version ${result.version}); it is no longer shadowed.` : `Shadow ${result.shadow} is live as version ${result.version}.`;
                  })
                }
              >
                Promote shadow {current.shadow} to live
              </button>
              <button type="button" className="button button-danger" disabled={busy} onClick={() => void act(async () => `Shadow ${(await dropShadow(current.shadow)).shadow} dropped.`)}>
                Drop shadow {current.shadow}
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
      {mayAct ? (
        <form className="card publish" onSubmit={submit} aria-labelledby="shadow-form-heading">
          <h3 id="shadow-form-heading">Set a shadow version</h3>
          <label htmlFor="shadow-source">Shadow hooks.yaml</label>
          <textarea id="shadow-source" className="code" rows={12} spellCheck={false} value={source} onChange={(event) => setSource(event.target.value)} aria-invalid={outcome?.kind === 'invalid'} />
          <p className="hint">Validated exactly as a publish; it replaces the current shadow, whose counters are kept for 7 days.</p>
          <div className="actions">
            <button type="submit" className="button" disabled={busy || source.trim() === ''}>
              Validate and shadow
            </button>
          </div>
        </form>
      ) : (
        <p className="notice notice-info" role="note">
          Setting, promoting or dropping a shadow version needs the admin role and a fleet-wide token.
        </p>
      )}
      <ActionOutcomeNotice outcome={outcome} refused="Not shadowed." />
    </section>
  );
}
