/**
 * One hook id in flight on several connections of the same agent at once (a client re-sending
 * after a reconnect while its old socket is still open, or two connections sharing a hook id):
 * a real gateway (Nest app on port 0, in this process), the run's private Redis, BullMQ and real
 * `ws` clients; the test plays the oracle worker. protocol.md §2 promises one reply per request,
 * so every connection that sent the hook gets the (same) decision — from the worker or from the
 * failure policy at the deadline — and a connection beyond the per-hook cap is refused at once.
 */
import type { DecisionFrame, ErrorFrame } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_WAITERS_PER_HOOK } from '../src/hooks/hook-waiters.js';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { decideAsWorker, promptSignal, waitForJob } from './support/decisions.js';
import { openTestStore, startTestGateway, testLogger, type TestGateway, type TestStore } from './support/test-gateway.js';

let gw: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ name: 'hook-waiters' });
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

/** Resolves once `count` re-sends of `hookId` joined its correlation (the gateway logs each join as it enqueues it, after it began to wait). */
async function joined(hookId: string, count: number): Promise<void> {
  await vi.waitFor(
    () => {
      const joins = gw.logs.filter((line) => line.includes('"hook enqueued"') && line.includes(hookId) && line.includes('"joined"'));
      if (joins.length < count) throw new Error(`${joins.length} of ${count} joins of ${hookId} so far`);
    },
    { timeout: 10_000, interval: 20 },
  );
}

describe('one hook id waited for on several connections', () => {
  it('delivers the worker decision to every connection that sent the hook', async () => {
    const old = await ready('alpha');
    const fresh = await ready('alpha');
    const first = old.hook('pre-tool-use');
    await waitForJob(store, first.id);
    // The re-send on the new socket while the old one is still open.
    const second = fresh.hook('pre-tool-use', { id: first.id });
    await joined(first.id, 1);
    const { decision } = await decideAsWorker(store, first.id, 'pre-tool-use', [promptSignal(first.id)]);

    expect(((await first.reply) as DecisionFrame).decision).toEqual(decision);
    expect(((await second.reply) as DecisionFrame).decision).toEqual(decision);
    expect(old.decisionsFor(first.id)).toHaveLength(1);
    expect(fresh.decisionsFor(first.id)).toHaveLength(1);
  });

  it('delivers the failure-policy decision at the deadline to every connection', async () => {
    const old = await ready('alpha');
    const fresh = await ready('alpha');
    const first = old.hook('pre-tool-use', { deadline_ms: 3000 });
    await waitForJob(store, first.id);
    const second = fresh.hook('pre-tool-use', { id: first.id });
    await joined(first.id, 1);

    const a = ((await first.reply) as DecisionFrame).decision;
    const b = ((await second.reply) as DecisionFrame).decision;
    expect(a).toMatchObject({ hook_id: first.id, allowed: false, decided_by: 'failure_policy', error: { code: 'E_TIMEOUT' } });
    expect(b).toEqual(a);
  });

  it(`waits on at most ${MAX_WAITERS_PER_HOOK} connections per hook id and refuses the next one at once, retryable`, async () => {
    const sockets = await Promise.all(Array.from({ length: MAX_WAITERS_PER_HOOK + 1 }, () => ready('alpha')));
    const first = sockets[0]!.hook('post-tool-use');
    await waitForJob(store, first.id);
    const joins = sockets.slice(1, MAX_WAITERS_PER_HOOK).map((socket) => socket.hook('post-tool-use', { id: first.id }));
    await joined(first.id, joins.length);
    const over = sockets[MAX_WAITERS_PER_HOOK]!.hook('post-tool-use', { id: first.id });
    expect(((await over.reply) as ErrorFrame).error).toMatchObject({ code: 'E_RATE_LIMITED' });

    const { decision } = await decideAsWorker(store, first.id, 'post-tool-use');
    for (const hook of [first, ...joins]) expect(((await hook.reply) as DecisionFrame).decision).toEqual(decision);
    // The refused connection re-sends later and gets the stored decision.
    const again = sockets[MAX_WAITERS_PER_HOOK]!.hook('post-tool-use', { id: first.id });
    expect(((await again.reply) as DecisionFrame).decision).toEqual(decision);
  });
});
