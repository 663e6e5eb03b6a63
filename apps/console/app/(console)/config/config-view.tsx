'use client';
/** The hooks configuration: the version workers run now, every published version, one version's text, the shadow version, and (admins) publishing. */
import { useState } from 'react';
import { fetchConfigHistory, fetchConfigVersion, fetchCurrentConfig } from '../../../src/lib/api/config';
import { useResource } from '../../../src/lib/live/use-resource';
import { useMayPublish, useOperator } from '../../../src/components/operator-context';
import { Empty, ErrorState, Loading } from '../../../src/components/states';
import { Timestamp } from '../../../src/components/time';
import { PublishForm } from './publish-form';
import { ReplayPanel } from './replay-panel';
import { ShadowPanel } from './shadow-panel';

function VersionText({ version }: { version: number }) {
  const detail = useResource(`config-version:${version}`, (signal) => fetchConfigVersion(version, signal));
  if (detail.status === 'loading') return <Loading label={`Loading version ${version}`} />;
  if (detail.status === 'error' && detail.error) return <ErrorState title={`Could not load version ${version}.`} error={detail.error} onRetry={detail.reload} />;
  if (!detail.data) return null;
  return (
    <section aria-labelledby="version-heading" className="card">
      <h3 id="version-heading">
        Version {detail.data.version} <span className="muted">published by {detail.data.published_by} · <Timestamp at={detail.data.published_at} /></span>
      </h3>
      <pre className="source" tabIndex={0} aria-label={`hooks.yaml of version ${detail.data.version}`}>
        {detail.data.source}
      </pre>
    </section>
  );
}

export function ConfigView() {
  const mayPublish = useMayPublish();
  const operator = useOperator();
  const refreshOn = { refreshOn: (event: { kind: string }) => event.kind === 'config' };
  const current = useResource('config-current', fetchCurrentConfig, refreshOn);
  const history = useResource('config-history', fetchConfigHistory, refreshOn);
  const [viewing, setViewing] = useState<number | null>(null);
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
                  <tr key={version.version} aria-current={viewing === version.version ? 'true' : undefined}>
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
                      <button type="button" className="link-button" onClick={() => setViewing(version.version)} aria-pressed={viewing === version.version}>
                        View v{version.version}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {viewing !== null ? <VersionText version={viewing} /> : null}
      </section>

      {/* Replays need a fleet-wide token (the report shows every team's recorded hooks); any role. */}
      {operator !== null && operator.scope === undefined && current.status !== 'loading' ? (
        <ReplayPanel initial={current.data?.source ?? ''} mayAct={mayPublish} onPublished={() => (current.reload(), history.reload())} onShadowed={() => setShadowSet((n) => n + 1)} />
      ) : null}
      {current.status === 'loading' ? null : <ShadowPanel mayAct={mayPublish} reloadKey={shadowSet} initial={current.data?.source ?? ''} onPromoted={() => (current.reload(), history.reload())} />}

      {mayPublish ? (
        current.status === 'loading' ? null : <PublishForm initial={current.data?.source ?? ''} onPublished={() => (current.reload(), history.reload())} />
      ) : (
        <p className="notice notice-info" role="note">
          Publishing a configuration needs the admin role and a fleet-wide token (it governs every team).
        </p>
      )}
    </>
  );
}
