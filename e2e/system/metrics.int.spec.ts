// Starts: a private Redis, one gateway process and one oracle-worker process (tools/stack), with
// AHP_METRICS_TOKEN set on both; an SDK agent runs a hook, then both processes are scraped over HTTP.
import { connect, type AhpClient } from '@ahp/sdk';
import { metricsEndpoint } from '@ahp/stack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startSystem, type System } from './harness.js';

const TOKEN = 'e2e-metrics-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

async function scrape(url: string, headers: Record<string, string> = auth): Promise<{ status: number; lines: string[] }> {
  const response = await fetch(url, { headers });
  return { status: response.status, lines: (await response.text()).split('\n') };
}

/** Scrapes until every expected line is there (counters move when the work is done, not when the agent hears of it). */
function scrapeUntil(url: string, expected: readonly string[]): Promise<string[]> {
  return eventually(async () => {
    const { status, lines } = await scrape(url);
    return status === 200 && expected.every((line) => lines.includes(line)) ? lines : undefined;
  }, `${expected.join(', ')} at ${url}`);
}

describe('/metrics on every process', () => {
  let system: System;
  let alice: AhpClient;
  let gatewayMetrics: string;
  let workerMetrics: string;

  beforeAll(async () => {
    system = await startSystem({
      name: 'metrics',
      gateways: 1,
      workers: 1,
      agents: [{ id: 'alice', name: 'Alice' }],
      gatewayEnv: { AHP_METRICS_TOKEN: TOKEN },
      workerEnv: { AHP_METRICS_TOKEN: TOKEN },
    });
    gatewayMetrics = metricsEndpoint(system.stack.gateways[0]!)!;
    workerMetrics = metricsEndpoint(system.stack.workers[0]!)!;
    alice = await connect({ url: system.stack.gatewayUrls(), token: system.token('alice') });
  });

  afterAll(async () => {
    alice?.close();
    await system?.stop();
  });

  it('reports each worker on its own metrics port in its ready line', () => {
    const worker = system.stack.workers[0]!;
    expect(worker.ready['metrics_port']).toEqual(expect.any(Number));
    expect(worker.ready['metrics_port']).not.toBe(system.stack.gateways[0]!.ready['port']);
  });

  it('counts the hook, its decision and its latency on the gateway, with the agent connected', async () => {
    const result = await alice.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'ls -la' } } });
    expect(result.allowed).toBe(true);
    const lines = await scrapeUntil(gatewayMetrics, [
      'ahp_connected_agents 1',
      'ahp_hooks_total{trigger="pre-tool-use",via="ws"} 1',
      'ahp_decisions_total{intensity="none",decided_by="oracles",trigger="pre-tool-use"} 1',
      'ahp_decision_latency_seconds_count{trigger="pre-tool-use"} 1',
      'ahp_decision_latency_seconds_bucket{le="+Inf",trigger="pre-tool-use"} 1',
    ]);
    expect(lines.filter((line) => line.startsWith('ahp_decision_latency_seconds_bucket{')).length).toBeGreaterThan(10);
    expect(lines.some((line) => line.startsWith('ahp_gateway_process_cpu_user_seconds_total '))).toBe(true);
  });

  it('counts the job on the worker: outcome, queue wait, evaluation and oracle runs', async () => {
    const lines = await scrapeUntil(workerMetrics, [
      'ahp_worker_jobs_total{outcome="decided"} 1',
      'ahp_hook_queue_wait_seconds_count{trigger="pre-tool-use"} 1',
      'ahp_worker_evaluation_duration_seconds_count{trigger="pre-tool-use"} 1',
    ]);
    expect(lines.some((line) => line.startsWith('ahp_oracle_run_duration_seconds_count{') && line.includes('outcome="answered"'))).toBe(true);
    expect(lines.some((line) => /^ahp_worker_config_version \d+$/.test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith('ahp_worker_process_resident_memory_bytes '))).toBe(true);
  });

  it('refuses scrapes without the token on both processes, and keeps the worker health check open', async () => {
    expect((await scrape(gatewayMetrics, {})).status).toBe(401);
    expect((await scrape(workerMetrics, {})).status).toBe(401);
    const health = await fetch(workerMetrics.replace(/\/metrics$/, '/healthz'));
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });
});
