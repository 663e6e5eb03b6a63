/**
 * The gateway's Prometheus metrics: what happens on this gateway (counted from its event hub,
 * {@link GatewayEvents}) and what the deployment looks like from here (read at scrape time:
 * connections, the hook queue, pending requests). docs/deploy.md lists every series and how to
 * read it.
 *
 * Each instance owns its {@link Registry} — never prom-client's global one — so several gateways
 * in one process (the integration tests) keep separate numbers.
 */
import { REQUEST_TYPES, type ProtocolState, type RequestType } from '@ahp/protocol';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GatewayEvents } from '../events/gateway-events.js';
import { cachedRead } from './cached-read.js';

/** Job counts of the hook queue, by state (what `HookQueue.counts` returns). */
export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/** Where scrape-time gauges read from; the module wires the gateway's registry and stores in. */
export interface GatewayMetricsSources {
  /** Open agent connections on this gateway. */
  connectedAgents(): number;
  /** The hook queue's job counts (shared by every gateway and worker of the deployment). */
  queueCounts(): Promise<QueueCounts>;
  /** Pending requests, newest first, at most {@link PENDING_REQUESTS_READ_LIMIT}. */
  pendingRequests(): Promise<readonly ProtocolState[]>;
  /** Listener failures of the event hub so far. */
  listenerFailures?(): number;
}

/** Options of {@link GatewayMetrics}. */
export interface GatewayMetricsOptions {
  sources: GatewayMetricsSources;
  /**
   * Collect Node's process metrics (CPU, memory, event loop lag, GC) under the `ahp_gateway_` prefix.
   * @defaultValue true
   */
  processMetrics?: boolean;
  /** How long queue counts are reused between scrapes. @defaultValue 2000 */
  queueCacheMs?: number;
  /** How long the pending-request listing is reused between scrapes. @defaultValue 5000 */
  requestsCacheMs?: number;
  /** A Redis read still unanswered after this long leaves its gauges as they were. @defaultValue 1000 */
  readTimeoutMs?: number;
  /** Epoch milliseconds, for request ages and the caches. @defaultValue `Date.now` */
  now?: () => number;
}

/** Most pending requests read per scrape; beyond it counts and ages cover the newest ones only (docs/deploy.md). */
export const PENDING_REQUESTS_READ_LIMIT = 1000;

/**
 * Decision latency buckets, in seconds: 1 ms to 10 s. A decision normally takes a few
 * milliseconds; the long tail (oracles near their budget, deadlines answered by failure policy at
 * the default 10 s) must still land in a bucket rather than in `+Inf`.
 */
export const DECISION_LATENCY_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
const REQUEST_TARGETS = ['agent', 'operators'] as const;

/** The gateway's registry and metric definitions, fed by events and read at scrape time. */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly hooks: Counter<'trigger' | 'via'>;
  private readonly decisions: Counter<'intensity' | 'decided_by' | 'trigger'>;
  private readonly decisionLatency: Histogram<'trigger'>;
  private readonly errors: Counter<'code'>;
  private readonly operatorErrors: Counter<'code' | 'status'>;

  constructor(options: GatewayMetricsOptions) {
    const { sources } = options;
    const now = options.now ?? Date.now;
    const registers = [this.registry];
    const timeoutMs = options.readTimeoutMs ?? 1000;
    const readFailures = new Counter({
      name: 'ahp_metrics_read_failures_total',
      help: 'Scrape-time reads from Redis that failed or timed out (their gauges kept the previous values), by source.',
      labelNames: ['source'],
      registers,
      // Waits for this scrape's reads (shared with the gauges below), so a failure shows in the scrape that met it.
      async collect() {
        await Promise.allSettled([readQueue(), readRequests()]);
      },
    });
    const readQueue = cachedRead({
      read: () => sources.queueCounts(),
      ttlMs: options.queueCacheMs ?? 2000,
      timeoutMs,
      now,
      onFailure: () => readFailures.inc({ source: 'queue' }),
    });
    const readRequests = cachedRead({
      read: () => sources.pendingRequests(),
      ttlMs: options.requestsCacheMs ?? 5000,
      timeoutMs,
      now,
      onFailure: () => readFailures.inc({ source: 'requests' }),
    });

    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'ahp_gateway_' });

    new Gauge({
      name: 'ahp_connected_agents',
      help: 'Agent WebSocket connections open on this gateway.',
      registers,
      collect() {
        this.set(sources.connectedAgents());
      },
    });
    this.hooks = new Counter({
      name: 'ahp_hooks_total',
      help: 'Hooks accepted for evaluation on this gateway, by trigger and transport (ws: agent socket, http: Claude Code hook endpoint).',
      labelNames: ['trigger', 'via'],
      registers,
    });
    this.decisions = new Counter({
      name: 'ahp_decisions_total',
      help: 'Decisions delivered to the agents waiting on this gateway, by intensity (none: allowed without intervention), who decided (oracles or failure_policy) and trigger.',
      labelNames: ['intensity', 'decided_by', 'trigger'],
      registers,
    });
    this.decisionLatency = new Histogram({
      name: 'ahp_decision_latency_seconds',
      help: 'Time from this gateway receiving a hook to handing its decision to the agent, by trigger.',
      labelNames: ['trigger'],
      buckets: [...DECISION_LATENCY_BUCKETS],
      registers,
    });
    this.errors = new Counter({
      name: 'ahp_errors_total',
      help: 'Error frames this gateway sent to agents, by error code (docs/errors.md).',
      labelNames: ['code'],
      registers,
    });
    this.operatorErrors = new Counter({
      name: 'ahp_operator_api_errors_total',
      help: 'Failed operator API calls answered by this gateway, by error code and HTTP status.',
      labelNames: ['code', 'status'],
      registers,
    });

    new Gauge({
      name: 'ahp_hook_queue_jobs',
      help: 'Jobs in the hook queue by state, for the whole deployment (every gateway reports the same queue; cached 2 s).',
      labelNames: ['state'],
      registers,
      async collect() {
        try {
          const counts = await readQueue();
          for (const state of QUEUE_STATES) this.set({ state }, counts[state]);
        } catch {
          // Counted by ahp_metrics_read_failures_total; the gauge keeps its previous values.
        }
      },
    });

    // Both request gauges come from one listing; the second collect reuses the first's read.
    new Gauge({
      name: 'ahp_requests_pending',
      help: 'Pending requests (approvals, shutdowns) of the deployment by type and target kind (agent or operators); cached 5 s.',
      labelNames: ['type', 'target'],
      registers,
      async collect() {
        try {
          const pending = await readRequests();
          for (const type of REQUEST_TYPES) for (const target of REQUEST_TARGETS) this.set({ type, target }, 0);
          for (const state of pending) this.inc({ type: state.type, target: state.target.kind });
        } catch {
          // As for the queue.
        }
      },
    });
    new Gauge({
      name: 'ahp_request_oldest_pending_age_seconds',
      help: 'Age of the oldest pending request of each type (0 when none is pending); cached 5 s.',
      labelNames: ['type'],
      registers,
      async collect() {
        let pending: readonly ProtocolState[];
        try {
          pending = await readRequests();
        } catch {
          return;
        }
        const oldest = new Map<RequestType, number>();
        for (const state of pending) {
          const created = Date.parse(state.created_at);
          oldest.set(state.type, Math.min(oldest.get(state.type) ?? created, created));
        }
        const at = now();
        for (const type of REQUEST_TYPES) {
          const created = oldest.get(type);
          this.set({ type }, created === undefined ? 0 : Math.max(0, (at - created) / 1000));
        }
      },
    });
    if (sources.listenerFailures !== undefined) {
      const listenerFailures = sources.listenerFailures;
      new Gauge({
        name: 'ahp_event_listener_failures',
        help: 'Listeners of the gateway event hub (fleet feed, metrics) that threw since start; each is also logged.',
        registers,
        collect() {
          this.set(listenerFailures());
        },
      });
    }
  }

  /** Counts what `events` reports from now on; returns the function that stops listening. */
  listenTo(events: GatewayEvents): () => void {
    const stops = [
      events.on('hookReceived', ({ trigger, via }) => this.hooks.inc({ trigger, via })),
      events.on('decisionDelivered', ({ decision, latencyMs }) => {
        this.decisions.inc({ intensity: decision.intensity ?? 'none', decided_by: decision.decided_by, trigger: decision.trigger });
        if (latencyMs !== undefined) this.decisionLatency.observe({ trigger: decision.trigger }, Math.max(0, latencyMs) / 1000);
      }),
      events.on('errorSent', ({ code }) => this.errors.inc({ code })),
      events.on('operatorErrorSent', ({ code, status }) => this.operatorErrors.inc({ code, status: String(status) })),
    ];
    return () => {
      for (const stop of stops) stop();
    };
  }

  /** The exposition text and its content type, for `GET /metrics`. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
