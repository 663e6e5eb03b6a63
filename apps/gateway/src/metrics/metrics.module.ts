import { Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import type { HookQueue, RequestStore } from '@ahp/store';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { GatewayEvents } from '../events/gateway-events.js';
import { HOOK_QUEUE, REQUEST_STORE } from '../store/store.tokens.js';
import { GatewayMetrics, PENDING_REQUESTS_READ_LIMIT } from './gateway-metrics.js';
import { MetricsController } from './metrics.controller.js';

function createGatewayMetrics(connections: ConnectionRegistry, queue: HookQueue, requests: RequestStore, events: GatewayEvents): GatewayMetrics {
  return new GatewayMetrics({
    sources: {
      connectedAgents: () => connections.size,
      queueCounts: () => queue.counts(),
      pendingRequests: () => requests.list({ status: 'pending', limit: PENDING_REQUESTS_READ_LIMIT }),
      listenerFailures: () => events.listenerFailures,
    },
  });
}

/**
 * Prometheus metrics of this gateway (`GET /metrics`): counted from the event hub, read from the
 * connection registry, the hook queue and the request store at scrape time.
 */
@Module({
  controllers: [MetricsController],
  providers: [
    {
      provide: GatewayMetrics,
      inject: [ConnectionRegistry, HOOK_QUEUE, REQUEST_STORE, GatewayEvents],
      useFactory: createGatewayMetrics,
    },
  ],
  exports: [GatewayMetrics],
})
export class MetricsModule implements OnModuleDestroy {
  private readonly stopListening: () => void;

  constructor(@Inject(GatewayMetrics) metrics: GatewayMetrics, @Inject(GatewayEvents) events: GatewayEvents) {
    this.stopListening = metrics.listenTo(events);
  }

  onModuleDestroy(): void {
    this.stopListening();
  }
}
