/**
 * `GET /metrics` of a real gateway (Nest app on port 0, in this process) over the run's private
 * Redis and BullMQ, scraped over HTTP after real traffic: an agent on a `ws` socket sends a hook,
 * the test decides it as a worker would (the decision is routed back through Redis), a bad frame
 * and a refused operator call produce errors. A second gateway checks `AHP_METRICS_TOKEN`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentClient } from './support/agent-client.js';
import { connectReady } from './support/agent-client.js';
import { decideAsWorker, promptSignal } from './support/decisions.js';
import { openTestStore, startTestGateway, testLogger, type TestGateway, type TestStore } from './support/test-gateway.js';

const WAIT = { timeout: 10_000, interval: 25 };
const METRICS_TOKEN = 'metrics-token-for-the-int-spec';

let gw: TestGateway;
let guarded: TestGateway;
let store: TestStore;
let client: AgentClient | undefined;

beforeAll(async () => {
  [gw, guarded] = await Promise.all([
    startTestGateway({ name: 'metrics' }),
    startTestGateway({ name: 'metrics-guarded', env: { AHP_METRICS_TOKEN: METRICS_TOKEN } }),
  ]);
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterAll(async () => {
  await client?.close();
  await Promise.all([gw?.stop(), guarded?.stop()]);
  await store?.close();
});

async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string | null; body: string }> {
  const response = await fetch(`${url}/metrics`, { headers });
  return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
}

/** Waits until a scrape has every line of `expected`; returns that scrape's sample lines. */
async function scrapeUntil(expected: readonly string[]): Promise<string[]> {
  return vi.waitFor(async () => {
    const { status, body } = await scrape(gw.httpUrl);
    expect(status).toBe(200);
    const lines = body.split('\n');
    expect(lines).toEqual(expect.arrayContaining([...expected]));
    return lines;
  }, WAIT);
}

describe('GET /metrics on a gateway', () => {
  it('is served in the Prometheus text format without auth when no token is configured', async () => {
    const { status, contentType, body } = await scrape(gw.httpUrl);
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(body).toContain('# TYPE ahp_hooks_total counter');
    expect(body).toContain('# TYPE ahp_decision_latency_seconds histogram');
    expect(body).toMatch(/^ahp_gateway_process_resident_memory_bytes \d+/m);
    expect(body.split('\n')).toContain('ahp_connected_agents 0');
  });

  it('counts a connected agent, its hook, the decision routed back through Redis and its latency', async () => {
    const ready = await connectReady(gw.wsUrl, gw.agents['alpha']!.token);
    client = ready.client;
    const hook = client.hook('pre-tool-use');
    await decideAsWorker(store, hook.id, 'pre-tool-use', [promptSignal(hook.id)]);
    expect((await hook.reply).type).toBe('decision');

    const lines = await scrapeUntil([
      'ahp_connected_agents 1',
      'ahp_hooks_total{trigger="pre-tool-use",via="ws"} 1',
      'ahp_decisions_total{intensity="prompt",decided_by="oracles",trigger="pre-tool-use"} 1',
      'ahp_decision_latency_seconds_bucket{le="+Inf",trigger="pre-tool-use"} 1',
      'ahp_decision_latency_seconds_count{trigger="pre-tool-use"} 1',
    ]);
    const buckets = lines.filter((line) => line.startsWith('ahp_decision_latency_seconds_bucket{'));
    expect(buckets.map((line) => /le="([^"]+)"/.exec(line)?.[1])).toEqual(['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']);
    // The queue and request gauges are read from Redis at scrape time: present with every state and type.
    for (const state of ['waiting', 'active', 'delayed', 'failed']) expect(lines.some((line) => line.startsWith(`ahp_hook_queue_jobs{state="${state}"} `))).toBe(true);
    expect(lines).toContain('ahp_requests_pending{type="tool_approval",target="operators"} 0');
    expect(lines).toContain('ahp_request_oldest_pending_age_seconds{type="plan_approval"} 0');
  });

  it('counts error frames sent to agents and refused operator API calls by code', async () => {
    const ready = client ?? (await connectReady(gw.wsUrl, gw.agents['alpha']!.token)).client;
    client = ready;
    ready.send('{not json');
    expect((await ready.error(null)).error.code).toBe('E_BAD_FRAME');
    // No operator tokens file: the operator API refuses every call with 401.
    expect((await fetch(`${gw.httpUrl}/v1/operator/requests`)).status).toBe(401);

    await scrapeUntil(['ahp_errors_total{code="E_BAD_FRAME"} 1', 'ahp_operator_api_errors_total{code="E_UNAUTHORIZED",status="401"} 1']);
  });

  it('counts a pending request in the request gauges', async () => {
    const created = new Date().toISOString();
    await store.stores.requests.create(
      {
        request_id: `req_${randomUUID()}`,
        type: 'shutdown',
        sender: 'alpha',
        target: { kind: 'agent', agent: 'beta' },
        status: 'pending',
        created_at: created,
        updated_at: created,
        payload: { reason: 'metrics spec' },
      },
      Date.now(),
    );
    // The request gauges are cached for 5 s; wait for a scrape after the cache expired.
    await scrapeUntil(['ahp_requests_pending{type="shutdown",target="agent"} 1']);
  });
});

describe('GET /metrics with AHP_METRICS_TOKEN', () => {
  it('refuses a scrape without the bearer token, or with another one', async () => {
    const missing = await scrape(guarded.httpUrl);
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toMatchObject({ error: { code: 'E_UNAUTHORIZED' } });
    expect(missing.body).not.toContain('ahp_');
    const wrong = await scrape(guarded.httpUrl, { authorization: 'Bearer not-the-metrics-token' });
    expect(wrong.status).toBe(401);
  });

  it('serves the metrics with the token', async () => {
    const { status, body } = await scrape(guarded.httpUrl, { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(status).toBe(200);
    expect(body.split('\n')).toContain('ahp_connected_agents 0');
  });

  it('leaves the health probes open', async () => {
    expect((await fetch(`${guarded.httpUrl}/healthz`)).status).toBe(200);
  });
});
