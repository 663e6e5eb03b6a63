import { describe, expect, it } from 'vitest';
import { aggregateSignals, failurePolicyDecision, SignalSchema, type HookDecision } from '@ahp/protocol';
import type { HookDelivery, HookDetailStore } from '@ahp/store';
import type { GatewayConfig } from '../config/gateway-config.js';
import { GatewayEvents } from '../events/gateway-events.js';
import { JsonLogger } from '../logging/json-logger.js';
import { DeliveryTimesService } from './delivery-times.service.js';

const NOW = '2026-02-09T10:00:01.000Z';
const QUIET = '0b5f0d0e-8c1a-4c59-9d57-2f3b1b1f3c01';
const LOUD = '0b5f0d0e-8c1a-4c59-9d57-2f3b1b1f3c02';
const POLICY = '0b5f0d0e-8c1a-4c59-9d57-2f3b1b1f3c03';

function setup() {
  const calls: { deliveries: readonly HookDelivery[]; gatewayId: string }[] = [];
  const details: HookDetailStore = {
    read: () => Promise.resolve(null),
    recordDelivered: (deliveries, gatewayId) => {
      calls.push({ deliveries, gatewayId });
      return Promise.resolve();
    },
    recordLate: () => Promise.resolve(),
  };
  const events = new GatewayEvents();
  const service = new DeliveryTimesService(details, events, new JsonLogger({ level: 'error', write: () => undefined }), { gatewayId: 'gw-a' } as GatewayConfig);
  service.onModuleInit();
  const delivered = (decision: HookDecision, at: number, via: 'ws' | 'http') => events.emit('decisionDelivered', { agentId: 'agent-1', decision, latencyMs: 1, via, at });
  return { service, calls, delivered };
}

describe('DeliveryTimesService', () => {
  it('batches every delivery, with or without signals, saying which had signals and when each decision was made, under this gateway', async () => {
    const { service, calls, delivered } = setup();
    const signal = SignalSchema.parse({
      header: { id: '00000000-0000-4000-8000-000000000001', type: 'pre-tool-use', timestamp: NOW, source: 'guard', intensity: 'aid', correlation_id: LOUD },
      context: {},
      payload: { level: 'aiding', decision: 'suggest', context: 'a hint', suggestions: [] },
    });
    delivered(aggregateSignals({ hookId: QUIET, trigger: 'pre-tool-use', signals: [], now: NOW }), 10, 'ws');
    delivered(aggregateSignals({ hookId: LOUD, trigger: 'pre-tool-use', signals: [signal], now: NOW }), 11, 'ws');
    delivered(failurePolicyDecision({ hookId: POLICY, trigger: 'pre-tool-use', policy: 'fail_closed', code: 'E_TIMEOUT', message: 'late', now: NOW }), 12, 'http');
    await service.flush();
    expect(calls).toEqual([
      {
        gatewayId: 'gw-a',
        deliveries: [
          { hookId: QUIET, at: 10, via: 'ws', decidedAt: NOW, withSignals: false },
          { hookId: LOUD, at: 11, via: 'ws', decidedAt: NOW, withSignals: true },
          { hookId: POLICY, at: 12, via: 'http', decidedAt: NOW, withSignals: false },
        ],
      },
    ]);
    // Nothing pending: no write.
    await service.flush();
    expect(calls).toHaveLength(1);
    await service.onModuleDestroy();
  });
});
