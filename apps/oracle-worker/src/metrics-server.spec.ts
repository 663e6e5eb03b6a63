/** The worker's metrics and health server over a real socket on 127.0.0.1, port 0. */
import { afterEach, describe, expect, it } from 'vitest';
import { bearerTokenMatches, startMetricsServer, type MetricsServer, type MetricsServerOptions } from './metrics-server.js';
import { WorkerMetrics } from './metrics.js';

const servers: MetricsServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(overrides: Partial<MetricsServerOptions> = {}) {
  const metrics = new WorkerMetrics({ configVersion: () => 3, processMetrics: false });
  let healthy = false;
  const server = await startMetricsServer({
    port: 0,
    host: '127.0.0.1',
    metrics: () => metrics.render(),
    health: () => ({ ok: healthy, body: { status: healthy ? 'ok' : 'starting', worker_id: 'w-1' } }),
    ...overrides,
  });
  servers.push(server);
  return {
    url: `http://127.0.0.1:${server.port}`,
    metrics,
    server,
    setHealthy: (value: boolean) => {
      healthy = value;
    },
  };
}

describe('worker metrics server', () => {
  it('serves /metrics in the Prometheus text format', async () => {
    const { url, metrics } = await start();
    metrics.jobFailed();
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await response.text();
    expect(body.split('\n')).toEqual(expect.arrayContaining(['ahp_worker_jobs_total{outcome="failed"} 1', 'ahp_worker_config_version 3']));
  });

  it('answers /healthz 503 until the worker takes jobs, then 200', async () => {
    const { url, setHealthy } = await start();
    const starting = await fetch(`${url}/healthz`);
    expect(starting.status).toBe(503);
    expect(await starting.json()).toEqual({ status: 'starting', worker_id: 'w-1' });
    setHealthy(true);
    const ok = await fetch(`${url}/healthz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ok', worker_id: 'w-1' });
  });

  it('refuses /metrics without the token when AHP_METRICS_TOKEN is set, and leaves /healthz open', async () => {
    const { url, setHealthy } = await start({ token: 'worker-metrics-token-123' });
    const missing = await fetch(`${url}/metrics`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="ahp-metrics"');
    expect(await missing.json()).toMatchObject({ error: { code: 'E_UNAUTHORIZED' } });
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer worker-metrics-token-124' } })).status).toBe(401);
    const allowed = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer worker-metrics-token-123' } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('ahp_worker_jobs_total');
    setHealthy(true);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('answers other paths 404 and other methods 405', async () => {
    const { url } = await start();
    expect((await fetch(`${url}/`)).status).toBe(404);
    const post = await fetch(`${url}/metrics`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers 500 with a typed error when rendering fails, and reports the failure', async () => {
    const reported: unknown[] = [];
    const { url } = await start({
      metrics: () => Promise.reject(new Error('collector broke')),
      onError: (error) => reported.push(error),
    });
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: 'E_INTERNAL' } });
    expect(reported).toEqual([new Error('collector broke')]);
  });

  it('refuses to start on a port already in use', async () => {
    const { server } = await start();
    await expect(startMetricsServer({ port: server.port, host: '127.0.0.1', metrics: async () => ({ contentType: 'text/plain', body: '' }), health: () => ({ ok: true, body: {} }) })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });
});

describe('bearerTokenMatches', () => {
  it('accepts exactly "Bearer <token>"', () => {
    expect(bearerTokenMatches('Bearer abc', 'abc')).toBe(true);
    expect(bearerTokenMatches('bearer abc', 'abc')).toBe(true);
    expect(bearerTokenMatches('Bearer abcd', 'abc')).toBe(false);
    expect(bearerTokenMatches('Basic abc', 'abc')).toBe(false);
    expect(bearerTokenMatches(undefined, 'abc')).toBe(false);
  });
});
