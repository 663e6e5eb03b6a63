/**
 * The fleet view, the health view and the operators' live feed on a real gateway (in-process,
 * port 0, the run's private Redis) with raw agent connections: rows and counts follow connects,
 * hooks, decisions and disconnects; the SSE stream starts with `ready` and relays fleet rows,
 * request changes, timeline events and signal hints; browser origins are checked.
 */
import { randomUUID } from 'node:crypto';
import {
  FleetResponseSchema,
  OperatorErrorBodySchema,
  OperatorHealthResponseSchema,
  OperatorLiveEventSchema,
  type OperatorLiveEvent,
} from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReady } from './support/agent-client.js';
import { promptSignal, waitForJob, workerDecision } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestGateway, type TestStore } from './support/test-gateway.js';
import { LIVE_HEARTBEAT_MS } from '../src/fleet/live.controller.js';

const CONSOLE_ORIGIN = 'http://console.test:3000';
let gw: TestGateway;
let store: TestStore;

beforeAll(async () => {
  gw = await startTestGateway({
    name: 'fleet-live',
    agents: [
      { id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'teammate' },
      { id: 'bob', name: 'Bob', token: newToken(), team: 'red', role: 'lead' },
    ],
    operators: [
      { id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() },
      { id: 'op-gone', name: 'Gone', role: 'viewer', token: newToken() },
      { id: 'op-moved', name: 'Moved', role: 'approver', token: newToken() },
    ],
    env: { AHP_CONSOLE_ORIGINS: CONSOLE_ORIGIN },
  });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterAll(async () => {
  await store?.close();
  await gw?.stop();
});

const auth = () => ({ authorization: `Bearer ${gw.operators['op-viv']!.token}` });

async function getJson(path: string): Promise<unknown> {
  const response = await fetch(`${gw.httpUrl}${path}`, { headers: auth() });
  expect(response.status, path).toBe(200);
  return response.json();
}

/** An open SSE stream: every parsed event so far, and a way to wait for one. */
interface LiveStream {
  events: OperatorLiveEvent[];
  next(match: (event: OperatorLiveEvent) => boolean, what: string): Promise<OperatorLiveEvent>;
  close(): void;
  /** Settles when the gateway ends the stream. */
  ended: Promise<void>;
}

async function openLive(headers: Record<string, string> = {}, search = ''): Promise<LiveStream> {
  const abort = new AbortController();
  const response = await fetch(`${gw.httpUrl}/v1/operator/live${search}`, { headers: { ...auth(), ...headers }, signal: abort.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: OperatorLiveEvent[] = [];
  const waiters: (() => void)[] = [];
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (data === undefined) continue;
          const event = OperatorLiveEventSchema.parse(JSON.parse(data.slice(6)));
          const named = block.split('\n').find((line) => line.startsWith('event: '));
          expect(named).toBe(`event: ${event.kind}`);
          events.push(event);
          for (const wake of waiters.splice(0)) wake();
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    events,
    async next(match, what) {
      for (;;) {
        const found = events.find(match);
        if (found !== undefined) return found;
        await Promise.race([
          new Promise<void>((resolve) => waiters.push(resolve)),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no live event: ${what}; got ${JSON.stringify(events.map((e) => e.kind))}`)), 10_000)),
        ]);
      }
    },
    close: () => abort.abort(),
    ended,
  };
}

describe('the live feed and the fleet view', () => {
  it('sends a heartbeat with the gateway clock and its interval, so a client can tell a quiet feed from a stalled one', async () => {
    const live = await openLive();
    try {
      const before = Date.now();
      const beat = await live.next((e) => e.kind === 'heartbeat', 'heartbeat');
      expect(beat).toMatchObject({ kind: 'heartbeat', gateway_id: gw.config.gatewayId, interval_ms: LIVE_HEARTBEAT_MS });
      if (beat.kind !== 'heartbeat') throw new Error('unreachable');
      expect(Date.parse(beat.at)).toBeGreaterThanOrEqual(before - 1000);
    } finally {
      live.close();
    }
  });

  it('starts with ready, then follows an agent through connect, hook, decision, event, request and disconnect', async () => {
    const live = await openLive();
    try {
      expect(await live.next((e) => e.kind === 'ready', 'ready')).toMatchObject({ kind: 'ready', gateway_id: gw.config.gatewayId });
      expect(live.events[0]?.kind).toBe('ready');

      const { client: alice } = await connectReady(gw.wsUrl, gw.agents['alice']!.token);
      await live.next((e) => e.kind === 'agent' && e.agent.agent.id === 'alice' && e.agent.status === 'connected', 'alice connected');
      const fleet = FleetResponseSchema.parse(await getJson('/v1/operator/fleet'));
      expect(fleet.agents.map((a) => [a.agent.id, a.status, a.agent.team])).toEqual([['alice', 'connected', 'red']]);
      expect(fleet.counts).toMatchObject({ total: 1, connected: 1 });
      expect(fleet.gateways.map((g) => g.gateway_id)).toContain(gw.config.gatewayId);

      const hook = alice.hook('pre-tool-use');
      await waitForJob(store, hook.id);
      const working = await live.next((e) => e.kind === 'agent' && e.agent.status === 'working', 'alice working');
      expect(working).toMatchObject({ agent: { hooks_in_flight: 1, last_hook: { hook_id: hook.id, trigger: 'pre-tool-use', tool: 'Bash' } } });

      await store.stores.hooks.decide(hook.id, workerDecision(hook.id, 'pre-tool-use', [promptSignal(hook.id)]), Date.now());
      expect((await hook.reply).type).toBe('decision');
      const decided = await live.next((e) => e.kind === 'agent' && e.agent.last_decision?.hook_id === hook.id, 'decision recorded');
      expect(decided).toMatchObject({ agent: { hooks_in_flight: 0, last_decision: { allowed: true, intensity: 'prompt', decided_by: 'oracles' } } });
      await live.next((e) => e.kind === 'signals' && e.agent_ids.includes('alice'), 'signal hint');

      const reply = await alice.request({
        type: 'event',
        id: randomUUID(),
        event: { kind: 'control_signal', control_signal: { control: 'step_done', step_id: 's1', format: 'structured' } },
      });
      expect(reply.type).toBe('ack');
      expect(await live.next((e) => e.kind === 'timeline' && e.entry.agent_id === 'alice', 'timeline event')).toMatchObject({
        entry: { event: { kind: 'control_signal', control_signal: { control: 'step_done' } } },
      });

      const requestId = `req_${randomUUID()}`;
      const opened = await alice.request({
        type: 'request',
        id: randomUUID(),
        request: { request_id: requestId, type: 'tool_approval', target: { kind: 'operators' }, payload: { tool: 'db.migrate', input: { table: 'orders' }, input_digest: 'a'.repeat(64) } },
      });
      expect(opened.type).toBe('ack');
      expect(await live.next((e) => e.kind === 'request' && e.request_id === requestId, 'request created')).toMatchObject({
        event: 'created',
        status: 'pending',
        type: 'tool_approval',
        actor: { kind: 'agent', id: 'alice' },
      });

      await alice.close();
      await live.next((e) => e.kind === 'agent' && e.agent.agent.id === 'alice' && e.agent.status === 'offline', 'alice offline');
      const after = FleetResponseSchema.parse(await getJson('/v1/operator/fleet'));
      expect(after.agents).toMatchObject([{ agent: { id: 'alice' }, status: 'offline', last_decision: { hook_id: hook.id } }]);
      expect(after.counts).toMatchObject({ total: 1, offline: 1 });
    } finally {
      live.close();
    }
  });

  it('narrows the agent rows and timeline entries of a stream to the agents it follows (?agents=), and nothing else', async () => {
    const everything = await openLive();
    const bobOnly = await openLive({}, '?agents=bob,%20bob');
    try {
      await everything.next((e) => e.kind === 'ready', 'ready (all)');
      await bobOnly.next((e) => e.kind === 'ready', 'ready (bob)');
      const { client: alice } = await connectReady(gw.wsUrl, gw.agents['alice']!.token);
      const reply = await alice.request({ type: 'event', id: randomUUID(), event: { kind: 'control_signal', control_signal: { control: 'step_done', step_id: 's2', format: 'structured' } } });
      expect(reply.type).toBe('ack');
      const requestId = `req_${randomUUID()}`;
      await alice.request({
        type: 'request',
        id: randomUUID(),
        request: { request_id: requestId, type: 'tool_approval', target: { kind: 'operators' }, payload: { tool: 'db.migrate', input: { table: 'users' }, input_digest: 'b'.repeat(64) } },
      });
      const { client: bob } = await connectReady(gw.wsUrl, gw.agents['bob']!.token);
      // The request event is not narrowed; bob's row is followed; the full stream saw alice too.
      await bobOnly.next((e) => e.kind === 'request' && e.request_id === requestId, 'alice’s request on the narrowed stream');
      await bobOnly.next((e) => e.kind === 'agent' && e.agent.agent.id === 'bob', 'bob’s row');
      await everything.next((e) => e.kind === 'agent' && e.agent.agent.id === 'bob', 'bob’s row (all)');
      await everything.next((e) => e.kind === 'timeline' && e.entry.agent_id === 'alice', 'alice’s timeline (all)');
      expect(everything.events.some((e) => e.kind === 'agent' && e.agent.agent.id === 'alice')).toBe(true);
      expect(bobOnly.events.filter((e) => (e.kind === 'agent' && e.agent.agent.id !== 'bob') || e.kind === 'timeline')).toEqual([]);
      await alice.close();
      await bob.close();
    } finally {
      everything.close();
      bobOnly.close();
    }
  });

  it('refuses a live query it cannot read with a typed 400, before the stream opens', async () => {
    for (const search of ['?agents=has%20space', `?agents=${Array.from({ length: 201 }, (_, i) => `a${i}`).join(',')}`, '?kinds=agent']) {
      const response = await fetch(`${gw.httpUrl}/v1/operator/live${search}`, { headers: auth() });
      expect(response.status, search).toBe(400);
      expect(OperatorErrorBodySchema.parse(await response.json()).error.code).toBe('E_INVALID_FRAME');
    }
  });

  it('reports the gateway’s decision latency, hooks in flight and the queue on the health view', async () => {
    const { client } = await connectReady(gw.wsUrl, gw.agents['bob']!.token);
    try {
      const hook = client.hook('pre-tool-use');
      await waitForJob(store, hook.id);
      await store.stores.hooks.decide(hook.id, workerDecision(hook.id, 'pre-tool-use'), Date.now());
      await hook.reply;
      await expect
        .poll(async () => OperatorHealthResponseSchema.parse(await getJson('/v1/operator/health')).decision_latency_ms.samples, { timeout: 15_000 })
        .toBeGreaterThan(0);
      const health = OperatorHealthResponseSchema.parse(await getJson('/v1/operator/health'));
      const mine = health.gateways.find((g) => g.gateway.gateway_id === gw.config.gatewayId);
      expect(mine?.decision_latency_ms?.p50).not.toBeNull();
      expect(health.queue).toEqual(expect.objectContaining({ waiting: expect.any(Number), failed: expect.any(Number) }));
      expect(health.workers).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('who may open the live feed', () => {
  it('accepts the configured console origin and refuses any other with a typed 403', async () => {
    const allowed = await openLive({ origin: CONSOLE_ORIGIN });
    await allowed.next((e) => e.kind === 'ready', 'ready for the console origin');
    allowed.close();

    const refused = await fetch(`${gw.httpUrl}/v1/operator/live`, { headers: { ...auth(), origin: 'https://evil.example' } });
    expect(refused.status).toBe(403);
    expect(OperatorErrorBodySchema.parse(await refused.json()).error).toMatchObject({ code: 'E_FORBIDDEN' });
  });

  it('refuses a caller without an operator token', async () => {
    const response = await fetch(`${gw.httpUrl}/v1/operator/live`);
    expect(response.status).toBe(401);
    expect(OperatorErrorBodySchema.parse(await response.json()).error.code).toBe('E_UNAUTHORIZED');
  });
});

describe('a live stream does not outlive its token', () => {
  const bearer = (id: string) => ({ authorization: `Bearer ${gw.operators[id]!.token}` });

  it('ends the stream of a token revoked, or whose scope changed, at the reload; other streams go on', async () => {
    const kept = await openLive();
    const gone = await openLive(bearer('op-gone'));
    const moved = await openLive(bearer('op-moved'));
    try {
      for (const live of [kept, gone, moved]) await live.next((e) => e.kind === 'ready', 'ready');
      const viv = gw.operators['op-viv']!;
      await gw.tokensFile.writeOperators([
        viv,
        { ...gw.operators['op-gone']!, revoked: true },
        { ...gw.operators['op-moved']!, scope: { teams: ['blue'] } },
      ]);
      expect(await gw.gateway.reloadOperatorTokens()).toMatchObject({ ok: true, revoked: 1 });

      await gone.ended;
      await moved.ended;
      expect((await fetch(`${gw.httpUrl}/v1/operator/me`, { headers: bearer('op-gone') })).status).toBe(401);
      // The changed token reconnects, and is scoped afresh.
      const again = await openLive(bearer('op-moved'));
      await again.next((e) => e.kind === 'ready', 'ready after reconnecting');
      again.close();
      // The unchanged token's stream still carries heartbeats after the reload.
      const seen = kept.events.length;
      await kept.next((e) => e.kind === 'heartbeat' && kept.events.indexOf(e) >= seen, 'heartbeat after the reload');
    } finally {
      for (const live of [kept, gone, moved]) live.close();
      await gw.tokensFile.writeOperators(Object.values(gw.operators));
      await gw.gateway.reloadOperatorTokens();
    }
  });
});

describe('shutdown', () => {
  it('ends open live streams, so an operator’s console does not hold the gateway open', async () => {
    const second = await startTestGateway({
      name: 'fleet-live-shutdown',
      operators: [{ id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() }],
      env: { AHP_SHUTDOWN_GRACE_MS: '100' },
    });
    const response = await fetch(`${second.httpUrl}/v1/operator/live`, { headers: { authorization: `Bearer ${second.operators['op-viv']!.token}` } });
    expect(response.status).toBe(200);
    const body = response.text(); // resolves only when the server ends the stream
    await second.stop();
    expect(await body).toContain('event: ready');
  });
});
