/**
 * Fair queueing of hooks on one real gateway (in-process, port 0, the run's private Redis, real
 * BullMQ; no worker runs, so every job stays queued where the gateway put it): a connection's
 * hooks within its fair share (`AHP_FAIR_IN_FLIGHT`) go to BullMQ's wait list, which workers empty
 * first; the hooks it has in flight beyond that are queued with a priority that grows with its
 * backlog. So one agent flooding the queue with valid hooks within its rate limit no longer
 * delays everyone else's hooks behind its own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectReady, validContext, type AgentClient } from './support/agent-client.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestGateway, type TestStore } from './support/test-gateway.js';

const FAIR_SHARE = 4;

let gw: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

beforeAll(async () => {
  gw = await startTestGateway({
    name: 'fair-queue',
    agents: [
      { id: 'heavy', name: 'Heavy', token: newToken() },
      { id: 'light', name: 'Light', token: newToken() },
    ],
    env: { AHP_FAIR_IN_FLIGHT: String(FAIR_SHARE) },
  });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await gw?.stop();
  await store?.close();
});

async function ready(agentId: string): Promise<AgentClient> {
  const { client } = await connectReady(gw.wsUrl, gw.agents[agentId]!.token);
  clients.push(client);
  return client;
}

/** Where the job of each hook waits, and with which priority (0: none). */
async function queued(ids: readonly string[]): Promise<{ state: string; priority: number }[]> {
  return vi.waitFor(
    async () => {
      const rows = await Promise.all(
        ids.map(async (id) => {
          const job = await store.queue.queueFor(id).getJob(id);
          if (job === undefined) throw new Error(`job ${id} not queued yet`);
          return { state: await job.getState(), priority: job.opts.priority ?? 0 };
        }),
      );
      return rows;
    },
    { timeout: 10_000, interval: 20 },
  );
}

describe('fair share of the hook queue', () => {
  it("queues a connection's hooks beyond its fair share behind everyone else's, the deeper the backlog the later", async () => {
    const heavy = await ready('heavy');
    const ids = Array.from({ length: FAIR_SHARE + 3 }, () => randomUUID());
    for (const id of ids) heavy.send({ type: 'hook', id, trigger: 'post-tool-use', context: validContext('post-tool-use') });
    const heavyJobs = await queued(ids);

    const light = await ready('light');
    const lightHook = light.hook('post-tool-use');
    const [lightJob] = await queued([lightHook.id]);

    expect(heavyJobs.slice(0, FAIR_SHARE)).toEqual(Array.from({ length: FAIR_SHARE }, () => ({ state: 'waiting', priority: 0 })));
    expect(heavyJobs.slice(FAIR_SHARE)).toEqual([1, 2, 3].map((priority) => ({ state: 'prioritized', priority })));
    // Another agent within its share is taken before every one of the heavy agent's excess hooks.
    expect(lightJob).toEqual({ state: 'waiting', priority: 0 });
  });
});
