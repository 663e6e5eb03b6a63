'use client';
/**
 * The hooks configuration: the version workers run now, every published version, one version's
 * text with its changes against the live one, the shadow version, validating an edited text, and
 * (admins) publishing and rolling back.
 */
import { useState } from 'react';
import type { ConfigVersionDetail } from '@ahp/protocol';
import { fetchConfigHistory, fetchConfigVersion, fetchCurrentConfig, publishConfig } from '@/lib/api/config';
import { useResource } from '@/lib/live/use-resource';
import { useMayPublish, useOperator } from '@/components/operator-context';
import { Empty, ErrorState, Loading, describeError } from '@/components/states';
import { Timestamp } from '@/components/time';
import { DiffView } from './diff-view';
import { PublishForm } from './publish-form';
import { ReplayPanel } from './replay-panel';
import { ShadowPanel } from './shadow-panel';

type RollbackState = { kind: 'idle' } | { kind: 'confirming' } | { kind: 'busy' } | { kind: 'done'; version: number; unchanged: boolean } | { kind: 'failed'; message: string };

/**
 * One version's text; for an earlier version, what it would change against the live one and,
 * for admins, a rollback: its text published again as a new version (validated and audited as any
 * publish, the audit entry naming the version restored). Two steps, so a stray click changes nothing.
 */
function VersionText({ version, live, mayRollBack, confirmFirst, onRolledBack }: { version: number; live: ConfigVersionDetail | null; mayRollBack: boolean; confirmFirst: boolean; onRolledBack(): void }) {
  const detail = useResource(`config-version:${version}`, (signal) => fetchConfigVersion(version, signal));
  const [rollback, setRollback] = useState<RollbackState>(confirmFirst ? { kind: 'confirming' } : { kind: 'idle' });
  if (detail.status === 'loading') return <Loading label={`Loading version ${version}`} />;
  if (detail.status === 'error' && detail.error) return <ErrorState title={`Could not load version ${version}.`} error={detail.error} onRetry={detail.reload} />;
  if (!detail.data) return null;
  const earlier = detail.data;
  const isLive = live !== null && live.version === earlier.version;

  const rollBack = async () => {
    setRollback({ kind: 'busy' });
    try {
      const result = await publishConfig(earlier.source, earlier.version);
      setRollback({ kind: 'done', version: result.version, unchanged: result.unchanged });
      onRolledBack();
    } catch (error) {
      setRollback({ kind: 'failed', message: describeError(error instanceof Error ? error : new Error(String(error))) });
    }
  };

  return (
    <section aria-labelledby="version-heading" className="card" data-testid="version-card">
      <h3 id="version-heading">
        Version {earlier.version} <span className="muted">published by {earlier.published_by} · <Timestamp at={earlier.published_at} /></span>
      </h3>
      <pre className="source" tabIndex={0} aria-label={`hooks.yaml of version ${earlier.version}`}>
        {earlier.source}
      </pre>
      {live !== null && !isLive ? (
        <details className="diff-details" data-testid="version-diff" open={rollback.kind === 'confirming'}>
          <summary>{`What going back to version ${earlier.version} changes against the live version ${live.version}`}</summary>
          <DiffView before={live.source} after={earlier.source} label={`live v${live.version} → v${earlier.version}`} />
        </details>
      ) : null}
      {mayRollBack && !isLive && rollback.kind === 'idle' ? (
        <div className="actions">
          <button type="button" className="button" onClick={() => setRollback({ kind: 'confirming' })}>
            {`Roll back to v${earlier.version}…`}
          </button>
        </div>
      ) : null}
      {mayRollBack && (rollback.kind === 'confirming' || rollback.kind === 'busy') ? (
        <div className="notice notice-warning" role="group" aria-label={`Roll back to version ${earlier.version}`}>
          <p>
            Publish version {earlier.version}&apos;s text as a new version? It is validated like any publish, workers switch to it within seconds, and the audit trail records it as a
            rollback of version {earlier.version}. The history keeps every version.
          </p>
          <div className="actions">
            <button type="button" className="button button-danger" disabled={rollback.kind === 'busy'} onClick={() => void rollBack()}>
              {rollback.kind === 'busy' ? 'Rolling back…' : `Publish v${earlier.version} again`}
            </button>
            <button type="button" className="button button-quiet" disabled={rollback.kind === 'busy'} onClick={() => setRollback({ kind: 'idle' })}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {rollback.kind === 'done' ? (
        <p className="notice notice-success" role="status">
          {rollback.unchanged ? `Nothing new: version ${earlier.version}'s text is already live (version ${rollback.version}).` : `Rolled back: version ${earlier.version}'s text is live as version ${rollback.version}.`}
        </p>
      ) : null}
      {rollback.kind === 'failed' ? (
        <p className="notice notice-error" role="alert">
          {`Not rolled back: ${rollback.message}`}
        </p>
      ) : null}
    </section>
  );
}

export function ConfigView() {
  const mayPublish = useMayPublish();
  const operator = useOperator();
  const refreshOn = { refreshOn: (event: { kind: string }) => event.kind === 'config' };
  const current = useResource('config-current', fetchCurrentConfig, refreshOn);
  const history = useResource('config-history', fetchConfigHistory, refreshOn);
  const [viewing, setViewing] = useState<{ version: number; rollback: boolean } | null>(null);
  const reloadAll = () => (current.reload(), history.reload());
  /** Bumped when the replay panel sets a shadow, so the shadow panel reads it again (setting one sends no live event). */
  const [shadowSet, setShadowSet] = useState(0);

  return (
    <>
      <div className="page-head">
        <h1>Configuration</h1>
        <p className="muted">The hooks configuration oracle workers evaluate with, and its history.</p>
      </div>
      <section aria-labelledby="current-heading" className="section">
        <h2 id="current-heading">Current version</h2>
        {current.status === 'loading' ? <Loading label="Loading the current configuration" /> : null}
        {current.status === 'error' && current.error ? <ErrorState title="Could not load the configuration." error={current.error} onRetry={current.reload} /> : null}
        {current.status === 'ready' && current.data === null ? (
          <Empty title="Nothing published yet.">Workers run the built-in defaults until a first version is published.</Empty>
        ) : null}
        {current.data ? (
          <div className="card">
            <p>
              <strong>Version {current.data.version}</strong> <span className="muted">published by {current.data.published_by} · <Timestamp at={current.data.published_at} /> · digest <code className="truncate">{current.data.digest}</code></span>
            </p>
            <pre className="source" tabIndex={0} aria-label="Current hooks.yaml">
              {current.data.source}
            </pre>
          </div>
        ) : null}
      </section>

      <section aria-labelledby="history-heading" className="section">
        <h2 id="history-heading">History</h2>
        {history.status === 'loading' ? <Loading label="Loading the history" /> : null}
        {history.status === 'error' && history.error ? <ErrorState title="Could not load the history." error={history.error} onRetry={history.reload} /> : null}
        {history.data && history.data.length === 0 ? <Empty title="No versions yet." /> : null}
        {history.data && history.data.length > 0 ? (
          <div className="table-scroll">
            <table className="table table-cards">
              <caption className="visually-hidden">Published versions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Published</th>
                  <th scope="col">By</th>
                  <th scope="col">Digest</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {history.data.map((version) => (
                  <tr key={version.version} aria-current={viewing?.version === version.version ? 'true' : undefined}>
                    <th scope="row" data-label="Version">
                      v{version.version}
                      {current.data?.version === version.version ? <span className="badge badge-ok">current</span> : null}
                    </th>
                    <td data-label="Published">
                      <Timestamp at={version.published_at} />
                    </td>
                    <td data-label="By">{version.published_by}</td>
                    <td data-label="Digest">
                      <code className="truncate">{version.digest.slice(0, 12)}</code>
                    </td>
                    <td data-label="">
                      <button type="button" className="link-button" onClick={() => setViewing({ version: version.version, rollback: false })} aria-pressed={viewing?.version === version.version}>
                        View v{version.version}
                      </button>
                      {mayPublish && current.data !== null && current.data?.version !== version.version ? (
                        <>
                          {' · '}
                          <button type="button" className="link-button" onClick={() => setViewing({ version: version.version, rollback: true })}>
                            {`Roll back to v${version.version}`}
                          </button>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {viewing !== null ? (
          // Keyed so a new choice (or a rollback asked from the table) starts from a fresh card.
          <VersionText
            key={`${viewing.version}:${viewing.rollback ? 'rollback' : 'view'}`}
            version={viewing.version}
            live={current.data ?? null}
            mayRollBack={mayPublish}
            confirmFirst={viewing.rollback}
            onRolledBack={reloadAll}
          />
        ) : null}
      </section>

      {/* Replays need a fleet-wide token (the report shows every team's recorded hooks); any role. */}
      {operator !== null && operator.scope === undefined && current.status !== 'loading' ? (
        <ReplayPanel initial={current.data?.source ?? ''} mayAct={mayPublish} onPublished={reloadAll} onShadowed={() => setShadowSet((n) => n + 1)} />
      ) : null}
      {current.status === 'loading' ? null : <ShadowPanel mayAct={mayPublish} reloadKey={shadowSet} initial={current.data?.source ?? ''} onPromoted={reloadAll} />}

      {/* Everyone may validate and compare; only fleet-wide admins get the publish button. */}
      {current.status === 'loading' ? null : <PublishForm initial={current.data?.source ?? ''} live={current.data ?? null} mayPublish={mayPublish} onPublished={reloadAll} />}
      {mayPublish ? null : (
        <p className="notice notice-info" role="note">
          Publishing or rolling back a configuration needs the admin role and a fleet-wide token (it governs every team).
        </p>
      )}
    </>
  );
}
