import { describe, expect, it } from 'vitest';
import type { FleetAgent, OperatorLiveEvent } from '@ahp/protocol';
import { StoreInputError, type FleetActivity, type FleetStore } from '@ahp/store';
import type { GatewayConfig } from '../config/gateway-config.js';
import { GatewayEvents } from '../events/gateway-events.js';
import { JsonLogger } from '../logging/json-logger.js';
import { FleetActivityService } from './fleet-activity.service.js';

const T0 = Date.parse('2026-11-26T10:00:00.000Z');

function rowOf(agentId: string): FleetAgent {
  return { agent: { id: agentId, name: agentId }, status: 'working', last_seen_at: new Date(T0).toISOString(), hooks_in_flight: 1 };
}

/** A fleet store that records its calls; `bad` names an agent whose input the store refuses. */
function fakeStore(bad?: string) {
  const calls: { batches: Omit<FleetActivity, 'gatewayId'>[][]; single: FleetActivity[]; live: OperatorLiveEvent[] } = { batches: [], single: [], live: [] };
  const fleet = {
    activityBatch: async (_gatewayId: string, inputs: readonly Omit<FleetActivity, 'gatewayId'>[]) => {
      calls.batches.push([...inputs]);
      if (inputs.some((input) => input.agentId === bad)) throw new StoreInputError(`invalid last hook of ${bad}`);
      return inputs.map((input) => rowOf(input.agentId));
    },
    activity: async (input: FleetActivity) => {
      calls.single.push(input);
      if (input.agentId === bad) throw new StoreInputError(`invalid last hook of ${bad}`);
      return rowOf(input.agentId);
    },
    publishLive: async (events: readonly OperatorLiveEvent[]) => {
      calls.live.push(...events);
    },
  } as unknown as FleetStore;
  const events = new GatewayEvents();
  const service = new FleetActivityService(fleet, events, { gatewayId: 'gw-a' } as GatewayConfig, new JsonLogger({ level: 'error', write: () => undefined }));
  service.onModuleInit();
  const hook = (agentId: string, n: number) =>
    events.emit('hookReceived', { agentId, sessionId: 's', hookId: `0b5f0d0e-8c1a-4c59-9d57-2f3b1b1f3c${String(n).padStart(2, '0')}`, trigger: 'pre-tool-use', tool: 'bash', via: 'ws', at: T0 + n });
  return { calls, service, hook };
}

describe('FleetActivityService', () => {
  it('writes every dirty agent of a flush in one store call and publishes a live event per row', async () => {
    const { calls, service, hook } = fakeStore();
    hook('alice', 1);
    hook('bob', 2);
    hook('alice', 3);
    hook('carol', 4);
    await service.flush();
    expect(calls.batches).toHaveLength(1);
    expect(calls.single).toEqual([]);
    expect(calls.batches[0]?.map((input) => [input.agentId, input.now, input.hooksInFlight])).toEqual([
      ['alice', T0 + 3, 2],
      ['bob', T0 + 2, 1],
      ['carol', T0 + 4, 1],
    ]);
    expect(calls.live.map((event) => (event.kind === 'agent' ? event.agent.agent.id : event.kind))).toEqual(['alice', 'bob', 'carol']);
    await service.onModuleDestroy();
  });

  it('writes each agent alone when the store refuses the batch for one agent’s data, so the others still show', async () => {
    const { calls, service, hook } = fakeStore('bob');
    hook('alice', 1);
    hook('bob', 2);
    await service.flush();
    expect(calls.batches).toHaveLength(1);
    expect(calls.single.map((input) => [input.agentId, input.gatewayId])).toEqual([
      ['alice', 'gw-a'],
      ['bob', 'gw-a'],
    ]);
    expect(calls.live.map((event) => (event.kind === 'agent' ? event.agent.agent.id : event.kind))).toEqual(['alice']);
    await service.onModuleDestroy();
  });
});
