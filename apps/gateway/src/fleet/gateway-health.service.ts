import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  LATENCY_BUCKET_BOUNDS_MS,
  latencyPercentiles,
  type GatewayHealth,
  type OperatorHealthResponse,
} from '@ahp/protocol';
import type { HealthStore, HookQueue, PresenceStore } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { HooksService } from '../hooks/hooks.service.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { HEALTH_STORE, HOOK_QUEUE, PRESENCE_STORE } from '../store/store.tokens.js';
import { FleetActivityService } from './fleet-activity.service.js';

/**
 * The health view: this gateway publishes its snapshot (decision latency window, hooks in
 * flight) beside its presence entry, and any gateway answers `GET /v1/operator/health` by reading
 * every gateway's snapshot, the live workers and the queue — so the answer is the same whichever
 * gateway the console asks.
 */
@Injectable()
export class GatewayHealthService implements OnModuleInit, OnModuleDestroy {
  private readonly log: JsonLogger;
  private timer: NodeJS.Timeout | undefined;
  private readonly everyMs: number;

  constructor(
    @Inject(HEALTH_STORE) private readonly health: HealthStore,
    @Inject(PRESENCE_STORE) private readonly presence: PresenceStore,
    @Inject(HOOK_QUEUE) private readonly queue: HookQueue,
    @Inject(HooksService) private readonly hooks: HooksService,
    @Inject(FleetActivityService) private readonly activity: FleetActivityService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'health' });
    // Same cadence as the presence heartbeat: a snapshot lives as long as the gateway's entry.
    this.everyMs = Math.max(500, Math.min(5000, Math.floor(config.presenceTtlMs / 3)));
  }

  onModuleInit(): void {
    void this.publish();
    this.timer = setInterval(() => void this.publish(), this.everyMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  async publish(now: number = Date.now()): Promise<void> {
    try {
      await this.health.putGatewayHealth(
        {
          gateway_id: this.config.gatewayId,
          hooks_in_flight: this.hooks.pendingCount,
          latency_counts: this.activity.latency.counts(now),
          window_ms: this.activity.latency.windowMs,
          at: new Date(now).toISOString(),
        },
        this.config.presenceTtlMs,
      );
    } catch (error) {
      this.log.warn({ error }, 'publishing the gateway health failed');
    }
  }

  /** The whole control plane's health, as any gateway sees it now. */
  async view(now: number = Date.now()): Promise<OperatorHealthResponse> {
    const [gateways, workers, queue] = await Promise.all([this.presence.listGateways(now), this.health.listWorkers(now), this.queue.counts()]);
    const snapshots = new Map((await this.health.gatewayHealth(gateways.map((g) => g.gateway_id))).map((s) => [s.gateway_id, s]));
    const merged = new Array<number>(LATENCY_BUCKET_BOUNDS_MS.length + 1).fill(0);
    const rows: GatewayHealth[] = gateways.map((gateway) => {
      const snapshot = snapshots.get(gateway.gateway_id);
      if (snapshot === undefined) return { gateway };
      snapshot.latency_counts.forEach((count, i) => (merged[i] = (merged[i] as number) + count));
      return { gateway, hooks_in_flight: snapshot.hooks_in_flight, decision_latency_ms: latencyPercentiles(snapshot.latency_counts) };
    });
    return {
      gateways: rows.sort((a, b) => (a.gateway.gateway_id < b.gateway.gateway_id ? -1 : 1)),
      workers,
      queue,
      decision_latency_ms: latencyPercentiles(merged),
      at: new Date(now).toISOString(),
    };
  }
}
