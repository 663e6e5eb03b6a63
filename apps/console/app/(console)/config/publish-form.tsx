'use client';
/**
 * Editing a hooks configuration: **Validate** (any role; `POST config/validate` stores nothing),
 * the changes against the live version as a line diff, and — for admins — publishing. The
 * gateway checks the text as completely as `ahp config validate` and names every problem's
 * line; the form lists them, marks the lines, and jumps the cursor to a problem on request.
 */
import { useRef, useState, type FormEvent } from 'react';
import type { ConfigVersionDetail } from '@ahp/protocol';
import { isApiError } from '@/lib/api/client';
import { publishConfig, validateConfig } from '@/lib/api/config';
import { configIssues, offsetOfLine, type ConfigIssue } from '@/lib/view/config-issues';
import { describeError } from '@/components/states';
import { DiffView } from './diff-view';

type Outcome =
  | { kind: 'published'; version: number; unchanged: boolean; warnings: ConfigIssue[] }
  | { kind: 'valid'; warnings: ConfigIssue[] }
  | { kind: 'invalid'; issues: ConfigIssue[]; message: string; source: string; published: boolean }
  | { kind: 'failed'; message: string };

export function PublishForm({ initial, live, mayPublish, onPublished }: { initial: string; live: ConfigVersionDetail | null; mayPublish: boolean; onPublished(): void }) {
  const [source, setSource] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const editor = useRef<HTMLTextAreaElement>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await publishConfig(source);
      setOutcome({ kind: 'published', version: result.version, unchanged: result.unchanged, warnings: result.warnings });
      onPublished();
    } catch (error) {
      if (isApiError(error, 'E_INVALID_FRAME')) {
        setOutcome({ kind: 'invalid', issues: configIssues(error.error.details), message: error.error.message, source, published: true });
      } else {
        setOutcome({ kind: 'failed', message: describeError(error instanceof Error ? error : new Error(String(error))) });
      }
    } finally {
      setBusy(false);
    }
  };

  // Validation answers 200 either way; a refused text is shown exactly as a refused publish would be.
  const validate = async () => {
    setBusy(true);
    try {
      const result = await validateConfig(source);
      setOutcome(
        result.valid
          ? { kind: 'valid', warnings: result.warnings }
          : { kind: 'invalid', issues: configIssues({ issues: result.issues }), message: `the hooks configuration has ${result.issues.length} problem(s)`, source, published: false },
      );
    } catch (error) {
      setOutcome({ kind: 'failed', message: describeError(error instanceof Error ? error : new Error(String(error))) });
    } finally {
      setBusy(false);
    }
  };

  const jumpTo = (issue: ConfigIssue) => {
    const element = editor.current;
    if (!element) return;
    const start = offsetOfLine(source, issue.line) + Math.max(0, issue.column - 1);
    element.focus();
    element.setSelectionRange(start, start);
  };

  const badLines = outcome?.kind === 'invalid' ? new Set(outcome.issues.map((issue) => issue.line)) : new Set<number>();
  const warnings = outcome?.kind === 'published' || outcome?.kind === 'valid' ? outcome.warnings : [];
  return (
    <form className="card publish" onSubmit={(event) => void submit(event)} aria-labelledby="publish-heading">
      <h2 id="publish-heading">{mayPublish ? 'Publish a new version' : 'Check a configuration'}</h2>
      <label htmlFor="config-source">hooks.yaml</label>
      <textarea
        id="config-source"
        ref={editor}
        className="code"
        rows={18}
        spellCheck={false}
        value={source}
        onChange={(event) => {
          setSource(event.target.value);
          // "Valid" speaks of the text that was checked; an edit makes it stale.
          if (outcome?.kind === 'valid') setOutcome(null);
        }}
        aria-invalid={outcome?.kind === 'invalid'}
        aria-describedby={outcome?.kind === 'invalid' ? 'config-issues' : 'config-hint'}
      />
      <p id="config-hint" className="hint">
        {mayPublish
          ? 'Validate checks the text (YAML, schema, expressions, oracles) and stores nothing. A publish is validated the same way first; nothing is stored unless it is valid. Workers pick a new version up within seconds.'
          : 'Validate checks the text (YAML, schema, expressions, oracles) exactly as a publish would, and stores nothing.'}
      </p>
      <div className="actions">
        <button type="button" className="button" disabled={busy || source.trim() === ''} onClick={() => void validate()}>
          Validate
        </button>
        {mayPublish ? (
          <button type="submit" className="button button-primary" disabled={busy || source.trim() === ''}>
            {busy ? 'Validating…' : 'Validate and publish'}
          </button>
        ) : null}
      </div>
      <details className="diff-details" data-testid="edit-diff">
        <summary>{live === null ? 'Changes (nothing published yet: every line is new)' : `Changes against the live version ${live.version}`}</summary>
        <DiffView before={live?.source ?? ''} after={source} label={live === null ? 'the edited text' : `live v${live.version} → the edited text`} />
      </details>
      {outcome?.kind === 'valid' ? (
        <p className="notice notice-success" role="status">
          Valid: this text would publish{outcome.warnings.length > 0 ? `, with ${outcome.warnings.length} warning(s)` : ''}. Nothing was stored.
        </p>
      ) : null}
      {outcome?.kind === 'published' ? (
        <p className="notice notice-success" role="status">
          {outcome.unchanged ? `Nothing new: the text is identical to the current version ${outcome.version}.` : `Published version ${outcome.version}; it is current now.`}
        </p>
      ) : null}
      {warnings.length > 0 ? (
        // Lint warnings (docs/hooks.md, "Lint warnings") never stop a publish; they are shown so the author can fix the rule.
        <div id="config-warnings" className="notice notice-warning" role="status">
          <p>
            <strong>Warnings.</strong> {outcome?.kind === 'published' ? 'The configuration is in force' : 'It would publish'}, but it may not do what you meant:
          </p>
          <ul className="issues">
            {warnings.map((warning, i) => (
              <li key={i}>
                {warning.line > 0 ? (
                  <button type="button" className="link-button" onClick={() => jumpTo(warning)}>
                    Line {warning.line}
                    {warning.column > 0 ? `, column ${warning.column}` : ''}
                  </button>
                ) : (
                  <span>Whole file</span>
                )}
                : {warning.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {outcome?.kind === 'failed' ? (
        <p className="notice notice-error" role="alert">
          {outcome.message}
        </p>
      ) : null}
      {outcome?.kind === 'invalid' ? (
        <div id="config-issues" className="notice notice-error" role="alert">
          <p>
            <strong>{outcome.published ? 'Not published.' : 'Not valid.'}</strong> {outcome.message}
          </p>
          <ul className="issues">
            {outcome.issues.map((issue, i) => (
              <li key={i}>
                {issue.line > 0 ? (
                  <button type="button" className="link-button" onClick={() => jumpTo(issue)}>
                    Line {issue.line}
                    {issue.column > 0 ? `, column ${issue.column}` : ''}
                  </button>
                ) : (
                  <span>Whole file</span>
                )}
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
          <details open>
            <summary>The submitted text, problem lines marked</summary>
            <ol className="source-lines">
              {outcome.source.split('\n').map((text, i) => (
                <li key={i} className={badLines.has(i + 1) ? 'bad-line' : undefined}>
                  <code>{text || ' '}</code>
                  {badLines.has(i + 1) ? <span className="visually-hidden"> (problem on this line)</span> : null}
                </li>
              ))}
            </ol>
          </details>
        </div>
      ) : null}
    </form>
  );
}
