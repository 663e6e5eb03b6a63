// Starts: a private Redis, two gateway processes and two oracle-worker processes; six SDK agents,
// three on each gateway. Jobs are enqueued by one gateway and evaluated by whichever worker takes
// them; every decision must come back to the gateway that holds the agent's socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type AhpClient } from '@ahp/sdk';
import { startSystem, type System } from './harness.js';

const AGENTS = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];

describe('two gateways and two workers', () => {
  let system: System;
  const clients = new Map<string, AhpClient>();

  beforeAll(async () => {
    system = await startSystem({
      name: 'multi-gateway',
      gateways: 2,
      workers: 2,
      agents: AGENTS.map((id) => ({ id, name: id.toUpperCase(), team: 'fleet' })),
    });
    const urls = system.stack.gatewayUrls();
    await Promise.all(
      AGENTS.map(async (id, index) => {
        clients.set(id, await connect({ url: urls[index % 2]!, token: system.token(id) }));
      }),
    );
  });

  afterAll(async () => {
    for (const client of clients.values()) client.close();
    await system?.stop();
  });

  it('answers every hook of every agent on either gateway with the decision for that hook', async () => {
    const runs = AGENTS.flatMap((id) =>
      Array.from({ length: 10 }, async (_, n) => {
        const command = n % 3 === 0 ? `rm -rf / # ${id}-${n}` : `echo ${id}-${n}`;
        const result = await clients.get(id)!.hook('pre-tool-use', { tool: { name: 'bash', input: { command } } });
        return { id, n, result };
      }),
    );
    const results = await Promise.all(runs);
    for (const { n, result } of results) {
      expect(result.allowed).toBe(n % 3 !== 0);
    }
    const hookIds = new Set(results.map(({ result }) => result.hookId));
    expect(hookIds.size).toBe(results.length);
    for (const { result } of results) expect(result.decision.hook_id).toBe(result.hookId);
  });

  it('shows both gateways’ agents in presence, each on the gateway that holds it', async () => {
    const gatewayIds = system.stack.gateways.map((gateway) => String(gateway.ready['gateway_id']));
    const entries = await system.stores.presence.list(Date.now());
    const byAgent = new Map(entries.map((entry) => [entry.agent.id, entry.gateway_id]));
    AGENTS.forEach((id, index) => expect(byAgent.get(id)).toBe(gatewayIds[index % 2]));
    const gateways = await system.stores.presence.listGateways(Date.now());
    expect(gateways.map((gateway) => gateway.gateway_id).sort()).toEqual([...gatewayIds].sort());
  });
});
