'use client';
/**
 * What holds the agent back across its sessions — its circuit breakers' counts, the block/control
 * signals it left unanswered, its rules' escalation counters — and, for approvers and admins, a
 * reset of the parts chosen, after a confirmation, showing what they held. The gateway checks the
 * role and the token's teams again, and audits the reset.
 */
import { useId, useState } from 'react';
import { ENFORCEMENT_PARTS, type EnforcementPart, type EnforcementResetResponse } from '@ahp/protocol';
import { isApiError } from '@/lib/api/client';
import { fetchEnforcement, resetEnforcement } from '@/lib/api/enforcement';
import { useResource } from '@/lib/live/use-resource';
import { PART_LABELS, describeEnforcement } from '@/lib/view/enforcement';
import { ErrorState, Loading, describeError } from '@/components/states';

type Step = { kind: 'idle' } | { kind: 'confirming' } | { kind: 'busy' } | { kind: 'done'; result: EnforcementResetResponse } | { kind: 'failed'; message: string };

export function EnforcementPanel({ agentId, mayReset }: { agentId: string; mayReset: boolean }) {
  const ids = useId();
  // An answer to a block or control signal lifts its hold: re-read when the agent's signals change.
  const state = useResource(`enforcement:${agentId}`, (signal) => fetchEnforcement(agentId, signal), {
    refreshOn: (event) => event.kind === 'signals' && event.agent_ids.includes(agentId),
    debounceMs: 500,
  });
  const [chosen, setChosen] = useState<ReadonlySet<EnforcementPart>>(new Set(ENFORCEMENT_PARTS));
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const parts = ENFORCEMENT_PARTS.filter((part) => chosen.has(part));
  const named = parts.map((part) => PART_LABELS[part].toLowerCase()).join(', ');

  const toggle = (part: EnforcementPart, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(part);
    else next.delete(part);
    setChosen(next);
    if (step.kind === 'confirming') setStep({ kind: 'idle' });
  };

  const reset = async () => {
    setStep({ kind: 'busy' });
    try {
      const result = await resetEnforcement(agentId, parts);
      setStep({ kind: 'done', result });
      state.reload();
    } catch (error) {
      setStep({ kind: 'failed', message: isApiError(error) ? error.error.message : describeError(error instanceof Error ? error : new Error(String(error))) });
    }
  };

  return (
    <section aria-labelledby={`${ids}-heading`} className="section" data-testid="enforcement">
      <h2 id={`${ids}-heading`}>Enforcement</h2>
      <p className="muted">Kept for the agent across its sessions: reconnecting does not reset it.</p>
      {state.status === 'loading' ? <Loading label="Loading the enforcement state" /> : null}
      {state.error ? <ErrorState title="Could not load the enforcement state." error={state.error} onRetry={state.reload} /> : null}
      {state.data ? (
        <dl className="meta meta-wide">
          {describeEnforcement(state.data).map((line) => (
            <div key={line.part} data-part={line.part} data-held={line.held}>
              <dt>{PART_LABELS[line.part]}</dt>
              <dd>{line.text}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {mayReset ? (
        <div className="decision">
          <fieldset className="field-inline">
            <legend>Parts to reset</legend>
            {ENFORCEMENT_PARTS.map((part) => (
              <label key={part}>
                <input type="checkbox" checked={chosen.has(part)} disabled={step.kind === 'busy'} onChange={(event) => toggle(part, event.target.checked)} /> {PART_LABELS[part]}
              </label>
            ))}
          </fieldset>
          {step.kind !== 'confirming' && step.kind !== 'busy' ? (
            <div className="actions">
              <button type="button" className="button" disabled={parts.length === 0} onClick={() => setStep({ kind: 'confirming' })}>
                Reset enforcement…
              </button>
            </div>
          ) : (
            <div className="notice notice-warning" role="group" aria-label={`Reset the enforcement of ${agentId}`}>
              <p>
                Reset the {named} of <code>{agentId}</code>? A tripped breaker or a hold stops holding it back: its next hook is admitted and its counts start from zero. The agent is
                not told. The audit trail records the reset with what it held.
              </p>
              <div className="actions">
                <button type="button" className="button button-danger" disabled={step.kind === 'busy'} onClick={() => void reset()}>
                  {step.kind === 'busy' ? 'Resetting…' : 'Reset'}
                </button>
                <button type="button" className="button button-quiet" disabled={step.kind === 'busy'} onClick={() => setStep({ kind: 'idle' })}>
                  Cancel
                </button>
              </div>
            </div>
          )}
          {step.kind === 'done' ? (
            <div className="notice notice-success" role="status" data-testid="enforcement-reset-result">
              <p>{step.result.changed ? `Reset: ${step.result.parts.map((part) => PART_LABELS[part].toLowerCase()).join(', ')}. Before, they held:` : 'Nothing to reset: these parts held nothing.'}</p>
              {step.result.changed ? (
                <ul>
                  {describeEnforcement(step.result.before).map((line) => (
                    <li key={line.part} data-part={line.part}>
                      {PART_LABELS[line.part]}: {line.text}
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
          {step.kind === 'failed' ? (
            <p className="notice notice-error" role="alert">
              {`Not reset: ${step.message}`}
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
