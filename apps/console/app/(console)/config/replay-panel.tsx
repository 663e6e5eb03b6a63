'use client';
/**
 * Replaying a candidate hooks configuration over recorded hooks (docs/hooks.md, "Replay a
 * candidate configuration"): paste or upload the candidate, pick the window, run it on the oracle
 * workers, follow its progress, and read what would change — transitions as a table and bars,
 * per rule and per agent, examples with their recorded context. Nothing is published by the
 * replay itself; after a completed one an admin with a fleet-wide token may publish the text that
 * was replayed, or set it as the shadow version to watch it on live traffic first (the same
 * operator API calls as the publish form and the shadow panel, so the same validation and audit).
 */
import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { HOOK_TRIGGERS, replayOutcomeOf, type ConfigReplayReport, type ConfigReplayStatus, type ReplayExample, type ReplayTransition } from '@ahp/protocol';
import { isApiError } from '@/lib/api/client';
import { publishConfig } from '@/lib/api/config';
import { cancelReplay, fetchReplay, submitReplay } from '@/lib/api/config-replay';
import { setShadow } from '@/lib/api/config-shadow';
import { configIssues, type ConfigIssue } from '@/lib/view/config-issues';
import { transitionsText } from '@/lib/view/transitions';
import { describeError } from '@/components/states';
import { ActionOutcomeNotice, actionOutcome, type ActionOutcome } from '@/components/action-outcome';
import { JsonBlock } from '@/components/json-block';
import { Timestamp } from '@/components/time';

const WINDOWS = [
  { label: 'last hour', ms: 3_600_000 },
  { label: 'last 24 hours', ms: 24 * 3_600_000 },
  { label: 'last 7 days', ms: 7 * 24 * 3_600_000 },
] as const;

const POLL_MS = 500;

/** A submitted replay keeps the text it evaluated: that text, not later edits, is what the next step publishes. */
type Run = { kind: 'idle' } | { kind: 'invalid'; issues: ConfigIssue[]; message: string } | { kind: 'failed'; message: string } | { kind: 'running' | 'done'; status: ConfigReplayStatus; source: string };

const arrow = (t: Pick<ReplayTransition, 'from' | 'to'>) => `${t.from} → ${t.to}`;

/** Bars of the transitions, widths relative to the largest. */
function TransitionChart({ transitions }: { transitions: readonly ReplayTransition[] }) {
  const max = Math.max(1, ...transitions.map((t) => t.count));
  return (
    <ul className="replay-bars" aria-label="Changed decisions by transition">
      {transitions.map((t) => (
        <li key={arrow(t)}>
          <span className="replay-bar-label">{arrow(t)}</span>
          <span className={`replay-bar fill-${t.to === 'allow' ? 'aid' : t.to}`} style={{ width: `${Math.max(4, (t.count / max) * 100)}%` }} aria-hidden="true" />
          <span className="replay-bar-count">{t.count}</span>
        </li>
      ))}
    </ul>
  );
}

function Examples({ examples, caption }: { examples: readonly ReplayExample[]; caption: string }) {
  return (
    <ul className="replay-examples" aria-label={caption}>
      {examples.map((example) => (
        <li key={example.hook_id}>
          <details>
            <summary>
              <Timestamp at={example.at} /> · {example.agent_id} · {example.trigger} · <strong>{`${replayOutcomeOf(example.before)} → ${replayOutcomeOf(example.after)}`}</strong>{' '}
              <code>{(example.after.rules.length > 0 ? example.after.rules : example.before.rules).join(' ')}</code>
            </summary>
            <p className="muted">
              Hook <code>{example.hook_id}</code>
              {example.config_version === undefined ? ' (built-in defaults)' : ` recorded under version ${example.config_version}`}
            </p>
            <JsonBlock value={example.context} label={`Recorded context of hook ${example.hook_id}`} />
          </details>
        </li>
      ))}
    </ul>
  );
}

function Report({ report }: { report: ConfigReplayReport }) {
  return (
    <div className="replay-report" aria-label="Replay report">
      <p role="status">
        <strong>
          {report.total} hooks replayed: {report.changed} would change
        </strong>
        , {report.unchanged} unchanged{report.rules_changed > 0 ? ` (${report.rules_changed} with other rules firing)` : ''}.
        {report.skipped.oversize + report.skipped.unreadable > 0 ? ` Skipped: ${report.skipped.oversize} recorded without context, ${report.skipped.unreadable} unreadable.` : ''}
        {report.truncated ? ' Stopped at the limit: the newest hooks were not replayed.' : ''}
      </p>
      {report.transitions.length > 0 ? (
        <>
          <TransitionChart transitions={report.transitions} />
          <table className="table">
            <caption>Transitions</caption>
            <thead>
              <tr>
                <th scope="col">Change</th>
                <th scope="col">Hooks</th>
              </tr>
            </thead>
            <tbody>
              {report.transitions.map((t) => (
                <tr key={arrow(t)}>
                  <th scope="row">{arrow(t)}</th>
                  <td>{t.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {report.by_rule.length > 0 ? (
        <table className="table">
          <caption>By rule</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Changed</th>
              <th scope="col">Transitions</th>
            </tr>
          </thead>
          <tbody>
            {report.by_rule.map((rule) => (
              <tr key={rule.rule}>
                <th scope="row">
                  <code>{rule.rule}</code>
                </th>
                <td>{rule.changed}</td>
                <td>{transitionsText(rule.transitions)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {report.by_agent.some((agent) => agent.changed > 0) ? (
        <table className="table">
          <caption>By agent</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Hooks</th>
              <th scope="col">Changed</th>
            </tr>
          </thead>
          <tbody>
            {report.by_agent
              .filter((agent) => agent.changed > 0)
              .map((agent) => (
                <tr key={agent.agent_id}>
                  <th scope="row">{agent.agent_id}</th>
                  <td>{agent.total}</td>
                  <td>{agent.changed}</td>
                </tr>
              ))}
          </tbody>
        </table>
      ) : null}
      {report.examples.length > 0 ? (
        <section aria-labelledby="replay-examples-heading">
          <h3 id="replay-examples-heading">
            Examples ({report.examples.length} of {report.changed})
          </h3>
          <Examples examples={report.examples} caption="Changed hooks" />
        </section>
      ) : null}
      {report.approvals.count > 0 ? (
        <section aria-labelledby="replay-approvals-heading">
          <h3 id="replay-approvals-heading">{report.approvals.count} decisions would wait for a person&apos;s approval</h3>
          <Examples examples={report.approvals.examples} caption="Decisions that would need approval" />
        </section>
      ) : null}
      {report.oracle_errors.length > 0 ? (
        <table className="table">
          <caption>Oracles of the candidate that did not answer</caption>
          <thead>
            <tr>
              <th scope="col">Oracle</th>
              <th scope="col">Outcome</th>
              <th scope="col">Hooks</th>
              <th scope="col">First error</th>
            </tr>
          </thead>
          <tbody>
            {report.oracle_errors.map((error) => (
              <tr key={`${error.oracle}:${error.outcome}`}>
                <th scope="row">{error.oracle}</th>
                <td>{error.outcome}</td>
                <td>{error.count}</td>
                <td>{error.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}


/**
 * The last step after a completed replay: publish the replayed text, or shadow it first. Only for
 * those who may publish (admin, fleet-wide); others are told why there is no button.
 */
function NextStep({ source, edited, mayAct, onPublished, onShadowed }: { source: string; edited: boolean; mayAct: boolean; onPublished(): void; onShadowed(): void }) {
  const [busy, setBusy] = useState(false);
  const [step, setStep] = useState<ActionOutcome | null>(null);

  if (!mayAct) {
    return (
      <p className="notice notice-info" role="note">
        Publishing this candidate or shadowing it needs the admin role and a fleet-wide token.
      </p>
    );
  }

  const act = async (action: () => Promise<string>) => {
    setBusy(true);
    setStep(await actionOutcome(action));
    setBusy(false);
  };

  const publish = () =>
    act(async () => {
      const result = await publishConfig(source);
      onPublished();
      return result.unchanged ? `Nothing new: the candidate is identical to the current version ${result.version}.` : `Published the replayed candidate as version ${result.version}; it is current now.`;
    });
  const shadow = () =>
    act(async () => {
      const result = await setShadow(source);
      onShadowed();
      return result.unchanged ? `Nothing new: shadow ${result.shadow} already has this text.` : `Shadow ${result.shadow} set to the replayed candidate; workers evaluate it within seconds.`;
    });

  return (
    <section aria-labelledby="replay-next-heading" className="replay-next">
      <h3 id="replay-next-heading">Then publish — or not</h3>
      <p className="hint">
        Publish the replayed candidate, or shadow it to compare it with live traffic first (replay and shadow count changes alike).
        {edited ? ' The text was edited since this replay: these act on the text that was replayed.' : ''}
      </p>
      <div className="actions">
        <button type="button" className="button button-primary" disabled={busy} onClick={() => void publish()}>
          Publish this candidate
        </button>
        <button type="button" className="button" disabled={busy} onClick={() => void shadow()}>
          Set it as the shadow version
        </button>
      </div>
      <ActionOutcomeNotice outcome={step} refused="Not applied." />
    </section>
  );
}

export function ReplayPanel({ initial, mayAct, onPublished, onShadowed }: { initial: string; mayAct: boolean; onPublished(): void; onShadowed(): void }) {
  const [source, setSource] = useState(initial);
  const [windowMs, setWindowMs] = useState<number>(WINDOWS[1].ms);
  const [agent, setAgent] = useState('');
  const [trigger, setTrigger] = useState('');
  const [run, setRun] = useState<Run>({ kind: 'idle' });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  const poll = (id: string, replayed: string) => {
    timer.current = setTimeout(() => {
      fetchReplay(id).then(
        (status) => {
          const finished = status.state !== 'waiting' && status.state !== 'active';
          setRun({ kind: finished ? 'done' : 'running', status, source: replayed });
          if (!finished) poll(id, replayed);
        },
        (error: unknown) => setRun({ kind: 'failed', message: describeError(error instanceof Error ? error : new Error(String(error))) }),
      );
    }, POLL_MS);
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    clearTimeout(timer.current);
    try {
      const status = await submitReplay({
        source,
        since: new Date(Date.now() - windowMs).toISOString(),
        ...(agent.trim() === '' ? {} : { agent: agent.trim() }),
        ...(trigger === '' ? {} : { trigger: trigger as (typeof HOOK_TRIGGERS)[number] }),
      });
      setRun({ kind: 'running', status, source });
      poll(status.id, source);
    } catch (error) {
      if (isApiError(error, 'E_INVALID_FRAME')) setRun({ kind: 'invalid', issues: configIssues(error.error.details), message: error.error.message });
      else setRun({ kind: 'failed', message: describeError(error instanceof Error ? error : new Error(String(error))) });
    }
  };

  const cancel = async (id: string, replayed: string) => {
    try {
      const status = await cancelReplay(id);
      setRun({ kind: status.state === 'cancelled' ? 'done' : 'running', status, source: replayed });
    } catch (error) {
      setRun({ kind: 'failed', message: describeError(error instanceof Error ? error : new Error(String(error))) });
    }
  };

  const upload = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) setSource(await file.text());
  };

  const running = run.kind === 'running';
  return (
    <form className="card publish" onSubmit={(event) => void submit(event)} aria-labelledby="replay-heading">
      <h2 id="replay-heading">Replay a candidate</h2>
      <p className="hint">
        What this configuration would have decided on the hooks the workers recorded, evaluated by the workers&apos; own engine. Running a replay publishes nothing.
      </p>
      <label htmlFor="replay-source">Candidate hooks.yaml</label>
      <textarea id="replay-source" className="code" rows={14} spellCheck={false} value={source} onChange={(event) => setSource(event.target.value)} aria-invalid={run.kind === 'invalid'} />
      <div className="filters">
        <label>
          Upload a file <input type="file" accept=".yaml,.yml,text/yaml,text/plain" onChange={(event) => void upload(event)} />
        </label>
        <label>
          Window{' '}
          <select value={windowMs} onChange={(event) => setWindowMs(Number(event.target.value))}>
            {WINDOWS.map((w) => (
              <option key={w.ms} value={w.ms}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent <input type="text" value={agent} onChange={(event) => setAgent(event.target.value)} placeholder="every agent" />
        </label>
        <label>
          Trigger{' '}
          <select value={trigger} onChange={(event) => setTrigger(event.target.value)}>
            <option value="">every trigger</option>
            {HOOK_TRIGGERS.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={running || source.trim() === ''}>
          {running ? 'Replaying…' : 'Run replay'}
        </button>
        {running ? (
          <button type="button" className="button" onClick={() => void cancel(run.status.id, run.source)}>
            Cancel
          </button>
        ) : null}
      </div>
      {running ? (
        <p role="status">
          <progress max={1} value={run.status.progress.fraction} aria-label="Replay progress" /> {run.status.state === 'waiting' ? 'Waiting for a worker…' : `${Math.floor(run.status.progress.fraction * 100)}% of the window, ${run.status.progress.read} hooks read`}
        </p>
      ) : null}
      {run.kind === 'invalid' ? (
        <div className="notice notice-error" role="alert">
          <p>
            <strong>Not replayed.</strong> {run.message}
          </p>
          <ul className="issues">
            {run.issues.map((issue, i) => (
              <li key={i}>
                {issue.line > 0 ? `Line ${issue.line}${issue.column > 0 ? `, column ${issue.column}` : ''}` : 'Whole file'}
                {issue.path ? (
                  <>
                    {' '}
                    <code>{issue.path}</code>
                  </>
                ) : null}
                : {issue.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {run.kind === 'failed' ? (
        <p className="notice notice-error" role="alert">
          {run.message}
        </p>
      ) : null}
      {run.kind === 'done' && run.status.state !== 'completed' ? (
        <p className="notice notice-error" role="alert">
          Replay {run.status.state}
          {run.status.error === undefined ? '.' : `: ${run.status.error}`}
        </p>
      ) : null}
      {run.kind === 'done' && run.status.report !== undefined ? <Report report={run.status.report} /> : null}
      {run.kind === 'done' && run.status.state === 'completed' ? (
        <NextStep key={run.status.id} source={run.source} edited={run.source !== source} mayAct={mayAct} onPublished={onPublished} onShadowed={onShadowed} />
      ) : null}
    </form>
  );
}
