import { randomUUID } from 'node:crypto';
import { aggregateSignals, type HookDecision, type ProtocolState } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { GatewayEvents } from '../events/gateway-events.js';
import { GatewayMetrics, type GatewayMetricsSources, type QueueCounts } from './gateway-metrics.js';

const NOW = Date.parse('2026-01-01T12:00:00.000Z');

function blockDecision(trigger: HookDecision['trigger']): HookDecision {
  const hookId = randomUUID();
  return {
    hook_id: hookId,
    trigger,
    allowed: false,
    intensity: 'block',
    signals: [],
    modifications: [],
    warnings: [],
    decided_by: 'failure_policy',
    error: { code: 'E_TIMEOUT', message: 'no decision before the deadline' },
    decided_at: new Date(NOW).toISOString(),
  };
}

function pending(requestId: string, type: ProtocolState['type'], target: ProtocolState['target'], createdAt: string): ProtocolState {
  const base = { request_id: requestId, sender: 'alpha', target, status: 'pending' as const, created_at: createdAt, updated_at: createdAt };
  if (type === 'shutdown') return { ...base, type, payload: {} };
  if (type === 'tool_approval') return { ...base, type, payload: { tool: 'Bash', input: { command: 'ls' }, input_digest: 'a'.repeat(64) } };
  throw new Error(`no fixture for ${type}`);
}

/** Sources whose answers a test changes between scrapes, counting how often Redis would be read. */
function sources(initial: { agents?: number; queue?: QueueCounts; requests?: ProtocolState[] } = {}) {
  const state = {
    agents: initial.agents ?? 0,
    queue: initial.queue ?? { waiting: 0, active: 0, delayed: 0, failed: 0 },
    requests: initial.requests ?? [],
    queueReads: 0,
    requestReads: 0,
    failQueue: false,
  };
  const impl: GatewayMetricsSources = {
    connectedAgents: () => state.agents,
    queueCounts: async () => {
      state.queueReads += 1;
      if (state.failQueue) throw new Error('redis is down');
      return state.queue;
    },
    pendingRequests: async () => {
      state.requestReads += 1;
      return state.requests;
    },
  };
  return { state, impl };
}

/** The sample lines of a rendering (no HELP/TYPE comments). */
function samples(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('GatewayMetrics', () => {
  it('counts hooks, decisions, latency and error frames fed through the event hub', async () => {
    const events = new GatewayEvents();
    const { impl } = sources({ agents: 2 });
    const metrics = new GatewayMetrics({ sources: impl, processMetrics: false, now: () => NOW });
    metrics.listenTo(events);

    events.emit('hookReceived', { agentId: 'alpha', sessionId: 's-1', hookId: randomUUID(), trigger: 'pre-tool-use', tool: 'Bash', via: 'ws', at: NOW });
    events.emit('hookReceived', { agentId: 'alpha', sessionId: 's-1', hookId: randomUUID(), trigger: 'pre-tool-use', tool: 'Bash', via: 'ws', at: NOW });
    events.emit('hookReceived', { agentId: 'beta', sessionId: 's-2', hookId: randomUUID(), trigger: 'stop', tool: undefined, via: 'http', at: NOW });
    const allowed = aggregateSignals({ hookId: randomUUID(), trigger: 'pre-tool-use', signals: [], now: new Date(NOW).toISOString() });
    events.emit('decisionDelivered', { agentId: 'alpha', decision: allowed, latencyMs: 3, via: 'ws', at: NOW });
    events.emit('decisionDelivered', { agentId: 'alpha', decision: blockDecision('pre-tool-use'), latencyMs: 10_000, via: 'ws', at: NOW });
    events.emit('decisionDelivered', { agentId: 'beta', decision: blockDecision('stop'), latencyMs: undefined, via: 'http', at: NOW });
    events.emit('errorSent', { agentId: 'alpha', code: 'E_BAD_FRAME' });
    events.emit('errorSent', { agentId: 'beta', code: 'E_BAD_FRAME' });
    events.emit('operatorErrorSent', { code: 'E_FORBIDDEN', status: 403 });

    const lines = samples((await metrics.render()).body);
    expect(lines).toEqual(
      expect.arrayContaining([
        'ahp_connected_agents 2',
        'ahp_hooks_total{trigger="pre-tool-use",via="ws"} 2',
        'ahp_hooks_total{trigger="stop",via="http"} 1',
        'ahp_decisions_total{intensity="none",decided_by="oracles",trigger="pre-tool-use"} 1',
        'ahp_decisions_total{intensity="block",decided_by="failure_policy",trigger="pre-tool-use"} 1',
        'ahp_decisions_total{intensity="block",decided_by="failure_policy",trigger="stop"} 1',
        // 3 ms lands in the 5 ms bucket, 10 s in the last finite one; the decision without a latency is not observed.
        'ahp_decision_latency_seconds_bucket{le="0.0025",trigger="pre-tool-use"} 0',
        'ahp_decision_latency_seconds_bucket{le="0.005",trigger="pre-tool-use"} 1',
        'ahp_decision_latency_seconds_bucket{le="5",trigger="pre-tool-use"} 1',
        'ahp_decision_latency_seconds_bucket{le="10",trigger="pre-tool-use"} 2',
        'ahp_decision_latency_seconds_bucket{le="+Inf",trigger="pre-tool-use"} 2',
        'ahp_decision_latency_seconds_count{trigger="pre-tool-use"} 2',
        'ahp_errors_total{code="E_BAD_FRAME"} 2',
        'ahp_operator_api_errors_total{code="E_FORBIDDEN",status="403"} 1',
      ]),
    );
    expect(lines.some((line) => line.startsWith('ahp_decision_latency_seconds_count{trigger="stop"}'))).toBe(false);
  });

  it('stops counting once it stops listening', async () => {
    const events = new GatewayEvents();
    const metrics = new GatewayMetrics({ sources: sources().impl, processMetrics: false });
    const stop = metrics.listenTo(events);
    events.emit('errorSent', { agentId: 'alpha', code: 'E_RATE_LIMITED' });
    stop();
    events.emit('errorSent', { agentId: 'alpha', code: 'E_RATE_LIMITED' });
    expect(samples((await metrics.render()).body)).toContain('ahp_errors_total{code="E_RATE_LIMITED"} 1');
  });

  it('reads the queue and pending requests at scrape time, with every state and type present', async () => {
    const { impl } = sources({
      queue: { waiting: 4, active: 2, delayed: 0, failed: 1 },
      requests: [
        pending('req_new', 'tool_approval', { kind: 'operators' }, '2026-01-01T11:59:30.000Z'),
        pending('req_old', 'tool_approval', { kind: 'operators' }, '2026-01-01T11:50:00.000Z'),
        pending('req_stop', 'shutdown', { kind: 'agent', agent: 'beta' }, '2026-01-01T11:59:00.000Z'),
      ],
    });
    const metrics = new GatewayMetrics({ sources: impl, processMetrics: false, now: () => NOW });
    const lines = samples((await metrics.render()).body);
    expect(lines).toEqual(
      expect.arrayContaining([
        'ahp_hook_queue_jobs{state="waiting"} 4',
        'ahp_hook_queue_jobs{state="active"} 2',
        'ahp_hook_queue_jobs{state="delayed"} 0',
        'ahp_hook_queue_jobs{state="failed"} 1',
        'ahp_requests_pending{type="tool_approval",target="operators"} 2',
        'ahp_requests_pending{type="tool_approval",target="agent"} 0',
        'ahp_requests_pending{type="shutdown",target="agent"} 1',
        'ahp_requests_pending{type="plan_approval",target="operators"} 0',
        'ahp_request_oldest_pending_age_seconds{type="tool_approval"} 600',
        'ahp_request_oldest_pending_age_seconds{type="shutdown"} 60',
        'ahp_request_oldest_pending_age_seconds{type="plan_approval"} 0',
      ]),
    );
  });

  it('reads Redis once per cache period however often it is scraped, and keeps the last values when a read fails', async () => {
    let now = NOW;
    const { state, impl } = sources({ queue: { waiting: 1, active: 0, delayed: 0, failed: 0 } });
    const metrics = new GatewayMetrics({ sources: impl, processMetrics: false, queueCacheMs: 2000, requestsCacheMs: 5000, now: () => now });
    await Promise.all([metrics.render(), metrics.render(), metrics.render()]);
    await metrics.render();
    expect([state.queueReads, state.requestReads]).toEqual([1, 1]);

    now += 2000;
    state.queue = { waiting: 7, active: 0, delayed: 0, failed: 0 };
    expect(samples((await metrics.render()).body)).toContain('ahp_hook_queue_jobs{state="waiting"} 7');
    expect([state.queueReads, state.requestReads]).toEqual([2, 1]);

    now += 2000;
    state.failQueue = true;
    const lines = samples((await metrics.render()).body);
    expect(lines).toContain('ahp_hook_queue_jobs{state="waiting"} 7');
    expect(lines).toContain('ahp_metrics_read_failures_total{source="queue"} 1');
  });

  it('gives each instance its own registry, with process metrics under the gateway prefix', async () => {
    const one = new GatewayMetrics({ sources: sources({ agents: 1 }).impl });
    const two = new GatewayMetrics({ sources: sources({ agents: 5 }).impl });
    const [first, second] = await Promise.all([one.render(), two.render()]);
    expect(first.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(samples(first.body)).toContain('ahp_connected_agents 1');
    expect(samples(second.body)).toContain('ahp_connected_agents 5');
    expect(first.body).toMatch(/^ahp_gateway_process_cpu_user_seconds_total \d/m);
    expect(first.body).toMatch(/^ahp_gateway_nodejs_eventloop_lag_seconds /m);
  });
});
