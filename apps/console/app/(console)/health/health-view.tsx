'use client';
/**
 * The control plane's health: gateways, oracle workers (count, concurrency), the hook queue,
 * decision latency and (for fleet-wide admins) notification deliveries. Re-read on every live `ready`, after fleet activity (debounced), and on demand.
 */
import type { LatencyPercentiles } from '@ahp/protocol';
import { fetchHealth } from '@/lib/api/fleet';
import { useFollowAgents } from '@/lib/live/live-provider';
import { useNow, useResource } from '@/lib/live/use-resource';
import { formatMs } from '@/lib/view/format';
import { Empty, ErrorState, Loading, StaleNotice } from '@/components/states';
import { Ago, Timestamp } from '@/components/time';
import { NotificationsView } from './notifications-view';

function Latency({ value }: { value: LatencyPercentiles | undefined }) {
  if (!value || value.samples === 0) return <span className="muted">no samples</span>;
  return (
    <span>
      p50 {formatMs(value.p50)} · p95 {formatMs(value.p95)} · p99 {formatMs(value.p99)} <span className="muted">({value.samples} samples)</span>
    </span>
  );
}

export function HealthView() {
  // Any agent's change may move the health figures.
  useFollowAgents('all');
  const health = useResource('health', fetchHealth, { refreshOn: (event) => event.kind === 'agent' || event.kind === 'signals' || event.kind === 'config', debounceMs: 2_000 });
  const now = useNow(5_000);
  const data = health.data;
  const concurrency = data ? data.workers.reduce((sum, worker) => sum + worker.concurrency, 0) : 0;

  return (
    <>
      <div className="page-head page-head-actions">
        <div>
          <h1>Health</h1>
          <p className="muted">{data ? <>As of <Timestamp at={data.at} /></> : 'Gateways, workers, the queue and decision latency.'}</p>
        </div>
        <button type="button" className="button" onClick={health.reload}>
          Refresh
        </button>
      </div>
      {health.status === 'loading' ? <Loading label="Loading health" /> : null}
      {health.status === 'error' && health.error ? <ErrorState title="Could not load health." error={health.error} onRetry={health.reload} /> : null}
      {data && health.error ? <StaleNotice error={health.error} onRetry={health.reload} /> : null}
      {data ? (
        <>
          <dl className="counts" aria-label="Health summary">
            <div className="count">
              <dt>Gateways</dt>
              <dd>{data.gateways.length}</dd>
            </div>
            <div className="count">
              <dt>Workers</dt>
              <dd>{data.workers.length}</dd>
            </div>
            <div className="count">
              <dt>Concurrency</dt>
              <dd>{concurrency}</dd>
            </div>
            <div className="count">
              <dt>Queue waiting</dt>
              <dd>{data.queue.waiting}</dd>
            </div>
            <div className="count">
              <dt>Active</dt>
              <dd>{data.queue.active}</dd>
            </div>
            <div className="count">
              <dt>Delayed / failed</dt>
              <dd>
                {data.queue.delayed} / {data.queue.failed}
              </dd>
            </div>
          </dl>
          <section aria-labelledby="latency-heading" className="section">
            <h2 id="latency-heading">Decision latency, last minute</h2>
            <p>
              <Latency value={data.decision_latency_ms} />
            </p>
          </section>
          <section aria-labelledby="gateways-heading" className="section">
            <h2 id="gateways-heading">Gateways</h2>
            {data.gateways.length === 0 ? (
              <Empty title="No live gateway.">A gateway registers itself when it starts; none has refreshed its record recently.</Empty>
            ) : (
              <div className="table-scroll">
                <table className="table table-cards">
                  <caption className="visually-hidden">Live gateways</caption>
                  <thead>
                    <tr>
                      <th scope="col">Gateway</th>
                      <th scope="col">Connections</th>
                      <th scope="col">Hooks in flight</th>
                      <th scope="col">Latency</th>
                      <th scope="col">Started</th>
                      <th scope="col">Last seen</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.gateways.map(({ gateway, hooks_in_flight, decision_latency_ms }) => (
                      <tr key={gateway.gateway_id}>
                        <th scope="row" data-label="Gateway">
                          <code>{gateway.gateway_id}</code> {gateway.draining ? <span className="badge badge-warning">draining</span> : null}
                        </th>
                        <td data-label="Connections">{gateway.connections}</td>
                        <td data-label="Hooks in flight">{hooks_in_flight ?? '–'}</td>
                        <td data-label="Latency">
                          <Latency value={decision_latency_ms} />
                        </td>
                        <td data-label="Started">
                          <Ago at={gateway.started_at} now={now} />
                        </td>
                        <td data-label="Last seen">
                          <Ago at={gateway.last_seen_at} now={now} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <section aria-labelledby="workers-heading" className="section">
            <h2 id="workers-heading">Oracle workers</h2>
            {data.workers.length === 0 ? (
              <Empty title="No live worker.">Hooks wait in the queue until a worker runs; their failure policy decides at the deadline.</Empty>
            ) : (
              <div className="table-scroll">
                <table className="table table-cards">
                  <caption className="visually-hidden">Live oracle workers</caption>
                  <thead>
                    <tr>
                      <th scope="col">Worker</th>
                      <th scope="col">Host / pid</th>
                      <th scope="col">Concurrency</th>
                      <th scope="col">Jobs processed</th>
                      <th scope="col">Config</th>
                      <th scope="col">Last seen</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.workers.map((worker) => (
                      <tr key={worker.worker_id}>
                        <th scope="row" data-label="Worker">
                          <code>{worker.worker_id}</code>
                        </th>
                        <td data-label="Host / pid">
                          {worker.hostname} / {worker.pid}
                        </td>
                        <td data-label="Concurrency">{worker.concurrency}</td>
                        <td data-label="Jobs processed">{worker.jobs_processed}</td>
                        <td data-label="Config">{worker.config_version ? `v${worker.config_version}` : 'built-in defaults'}</td>
                        <td data-label="Last seen">
                          <Ago at={worker.last_seen_at} now={now} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <NotificationsView />
        </>
      ) : null}
    </>
  );
}
