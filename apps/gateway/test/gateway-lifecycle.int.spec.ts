/**
 * Gateways over their life: several instances sharing one Redis (routing to whichever holds the
 * socket), heartbeat and hello deadlines, token reload, and graceful shutdown. Real gateways
 * in-process, the run's private Redis, real `ws` clients.
 */
import { CLOSE_CODES, type DecisionFrame, type ErrorFrame, type GoawayFrame } from '@ahp/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UpgradeRefused, connectAgent, connectReady, type AgentClient } from './support/agent-client.js';
import { decideAsWorker, waitForJob } from './support/decisions.js';
import { defaultAgents, openTestStore, startTestGateway, testLogger, type TestGateway, type TestStore } from './support/test-gateway.js';

/** Polling bound for eventually-consistent reads (presence, correlation owner). */
const WAIT = { timeout: 10_000, interval: 20 };

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function gateway(options: Parameters<typeof startTestGateway>[0]): Promise<TestGateway> {
  const gw = await startTestGateway(options);
  cleanups.push(() => gw.stop());
  return gw;
}

async function storeFor(gw: TestGateway): Promise<TestStore> {
  const store = await openTestStore(gw.keyPrefix, testLogger());
  cleanups.push(() => store.close());
  return store;
}

function closeLater<T extends AgentClient>(client: T): T {
  cleanups.push(() => client.close());
  return client;
}

async function upgradeStatus(url: string, token: string): Promise<number> {
  try {
    closeLater(await connectAgent(url, { token }));
    return 101;
  } catch (error) {
    if (error instanceof UpgradeRefused) return error.status;
    throw error;
  }
}

describe('several gateways on one Redis', () => {
  it('delivers a decision to the gateway that holds the socket when the hook is re-sent there', async () => {
    const agents = defaultAgents();
    const first = await gateway({ name: 'multi', agents });
    const second = await gateway({ keyPrefix: first.keyPrefix, agents });
    const store = await storeFor(first);
    const alphaToken = agents[0]!.token;

    const { client: onFirst, welcome: firstWelcome } = await connectReady(first.wsUrl, alphaToken);
    closeLater(onFirst);
    const hook = onFirst.hook('pre-tool-use');
    await waitForJob(store, hook.id);
    await onFirst.close();

    // The SDK reconnects (the load balancer picks the other instance) and re-sends the hook.
    const { client: onSecond, welcome } = await connectReady(second.wsUrl, alphaToken, { session_id: firstWelcome.session_id });
    closeLater(onSecond);
    expect(welcome).toMatchObject({ resumed: true, gateway_id: second.config.gatewayId });
    const resent = onSecond.hook('pre-tool-use', { id: hook.id });
    const correlation = await vi.waitFor(async () => {
      const stored = await store.stores.hooks.get(hook.id);
      if (stored?.correlation.gateway_id !== second.config.gatewayId) throw new Error('not yet owned by the second gateway');
      return stored.correlation;
    }, WAIT);
    expect(correlation.status).toBe('pending');

    const { decision } = await decideAsWorker(store, hook.id, 'pre-tool-use');
    expect(((await resent.reply) as DecisionFrame).decision).toEqual(decision);

    // Meanwhile an agent on the first gateway is served there.
    const beta = closeLater((await connectReady(first.wsUrl, agents[1]!.token)).client);
    const betaHook = beta.hook('post-tool-use');
    await decideAsWorker(store, betaHook.id, 'post-tool-use');
    expect((await betaHook.reply).type).toBe('decision');
  });
});

describe('heartbeat and handshake deadline', () => {
  it('terminates a peer that stops answering pings, and closes one that never says hello', async () => {
    const gw = await gateway({ name: 'heartbeat', env: { AHP_HEARTBEAT_MS: '1000', AHP_PRESENCE_TTL_MS: '3000', AHP_HELLO_TIMEOUT_MS: '200' } });
    const agents = Object.values(gw.agents);

    const silent = closeLater(await connectAgent(gw.wsUrl, { token: agents[0]!.token, autoPong: false }));
    let pings = 0;
    silent.ws.on('ping', () => pings++);
    await silent.hello();

    // A peer that answers is pinged every interval too (its slice of the spread heartbeat comes
    // round) and stays connected.
    const answeringSince = Date.now();
    const answering = closeLater((await connectReady(gw.wsUrl, agents[1]!.token)).client);
    let answeredPings = 0;
    answering.ws.on('ping', () => answeredPings++);

    const mute = closeLater(await connectAgent(gw.wsUrl, { token: agents[1]!.token }));
    const handshakeError = await mute.error(null);
    expect(handshakeError.error.code).toBe('E_HANDSHAKE');
    expect((await mute.closed).code).toBe(CLOSE_CODES.HANDSHAKE_TIMEOUT);

    // Terminated without a close frame: the client sees an abnormal closure.
    expect((await silent.closed).code).toBe(1006);
    expect(pings).toBeGreaterThanOrEqual(1);
    await vi.waitFor(() => expect(answeredPings).toBeGreaterThanOrEqual(2), { timeout: 5000, interval: 50 });
    expect(answering.isOpen).toBe(true);

    // Its pongs keep its presence entry alive past the 3 s TTL (refreshes are gathered and written
    // together), with the time of a recent pong as its last activity.
    const store = await storeFor(gw);
    await vi.waitFor(
      async () => {
        const now = Date.now();
        expect(now).toBeGreaterThan(answeringSince + 3500);
        const entry = (await store.stores.presence.list(now)).find((listed) => listed.agent.id === agents[1]!.id);
        expect(Date.parse(entry?.last_activity_at ?? '')).toBeGreaterThan(answeringSince + 500);
      },
      { timeout: 10_000, interval: 100 },
    );
  });
});

describe('agent tokens reload', () => {
  it('applies a new tokens file without a restart and closes connections whose token was revoked', async () => {
    const agents = defaultAgents();
    const gw = await gateway({ name: 'reload', agents });
    const [alpha, beta] = agents;
    const alphaClient = closeLater((await connectReady(gw.wsUrl, alpha!.token)).client);
    const betaClient = closeLater((await connectReady(gw.wsUrl, beta!.token)).client);

    const delta = { id: 'delta', name: 'Delta', token: 'delta-token-0123456789abcdef' };
    await gw.tokensFile.write([{ ...alpha!, revoked: true }, beta!, delta]);
    await expect(gw.gateway.reloadTokens()).resolves.toMatchObject({ ok: true, agents: 2, revoked: 1 });

    expect((await alphaClient.error(null)).error.code).toBe('E_FORBIDDEN');
    expect((await alphaClient.closed).code).toBe(CLOSE_CODES.FORBIDDEN);
    expect(await upgradeStatus(gw.wsUrl, alpha!.token)).toBe(401);
    const deltaReady = await connectReady(gw.wsUrl, delta.token);
    closeLater(deltaReady.client);
    const { welcome } = deltaReady;
    expect(welcome.agent).toEqual({ id: 'delta', name: 'Delta' });
    expect(betaClient.isOpen).toBe(true);
  });
});

describe('graceful shutdown', () => {
  it('drains: goaway, 503 for readiness and upgrades, in-flight hooks delivered, then closes with the reconnect code', async () => {
    const gw = await gateway({ name: 'shutdown' });
    const store = await storeFor(gw);
    const [alpha, beta] = Object.values(gw.agents);
    const { client: alphaClient, welcome: alphaWelcome } = await connectReady(gw.wsUrl, alpha!.token);
    const { client: betaClient } = await connectReady(gw.wsUrl, beta!.token);
    closeLater(alphaClient);
    closeLater(betaClient);
    const inFlight = alphaClient.hook('pre-tool-use');
    await waitForJob(store, inFlight.id);

    const stopping = gw.gateway.shutdown();

    const goaway = (await alphaClient.next((f) => f.type === 'goaway')) as GoawayFrame;
    expect(goaway.reconnect_after_ms).toBeGreaterThanOrEqual(0);
    expect((await betaClient.next((f) => f.type === 'goaway')).type).toBe('goaway');

    const readiness = await fetch(`${gw.httpUrl}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toMatchObject({ status: 'unavailable', failed: ['draining'] });
    expect((await fetch(`${gw.httpUrl}/healthz`)).status).toBe(200);
    expect(await upgradeStatus(gw.wsUrl, beta!.token)).toBe(503);
    const gateways = await store.stores.presence.listGateways(Date.now());
    expect(gateways.find((info) => info.gateway_id === gw.config.gatewayId)).toMatchObject({ draining: true, connections: 2 });

    // New work is refused on a draining gateway; the work in flight is still answered.
    const late = betaClient.hook('post-tool-use');
    expect(((await late.reply) as ErrorFrame).error).toMatchObject({ code: 'E_SHUTTING_DOWN', retryable: true });
    const { decision } = await decideAsWorker(store, inFlight.id, 'pre-tool-use');
    expect(((await inFlight.reply) as DecisionFrame).decision).toEqual(decision);

    expect((await alphaClient.closed).code).toBe(CLOSE_CODES.GOING_AWAY);
    expect((await betaClient.closed).code).toBe(CLOSE_CODES.GOING_AWAY);
    await stopping;

    // Presence left with the gateway (read through the test's own connection).
    const after = await store.stores.presence.listGateways(Date.now());
    expect(after.find((info) => info.gateway_id === gw.config.gatewayId)).toBeUndefined();
    const entries = await store.stores.presence.list(Date.now());
    expect(entries.find((entry) => entry.session_id === alphaWelcome.session_id)).toBeUndefined();
  });
});
