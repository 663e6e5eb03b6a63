/**
 * The agent endpoint end to end: a real gateway (Nest app on port 0, in this process), the run's
 * private Redis, BullMQ, and real `ws` clients. The test plays the oracle worker by calling
 * `hooks.decide` on its own store handle, exactly as a worker process would.
 */
import { randomUUID } from 'node:crypto';
import { CLOSE_CODES, FRAME_LIMITS, PROTOCOL_VERSION, type DecisionFrame, type ErrorFrame } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentClient, UpgradeRefused, connectAgent, connectReady } from './support/agent-client.js';
import { decideAsWorker, promptSignal, waitForJob, workerDecision } from './support/decisions.js';
import { openTestStore, startTestGateway, testLogger, type TestGateway, type TestStore } from './support/test-gateway.js';

const MAX_FRAME_BYTES = 4096;

/** Polling bound for eventually-consistent reads (presence, correlation owner). */
const WAIT = { timeout: 10_000, interval: 20 };

let gw: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

/** Registers a client for closing after the test. */
function track<T extends { client: AgentClient } | AgentClient>(value: T): T {
  clients.push(value instanceof AgentClient ? value : value.client);
  return value;
}

function token(agentId: string): string {
  return gw.agents[agentId]!.token;
}

async function ready(agentId: string, hello: Record<string, unknown> = {}) {
  return track(await connectReady(gw.wsUrl, token(agentId), hello));
}

async function refusal(options: Parameters<typeof connectAgent>[1]): Promise<number> {
  const error = await connectAgent(gw.wsUrl, options).then(
    (client) => {
      track(client);
      return new Error('upgrade unexpectedly succeeded');
    },
    (e: unknown) => e,
  );
  if (!(error instanceof UpgradeRefused)) throw error;
  return error.status;
}

beforeAll(async () => {
  gw = await startTestGateway({ name: 'agents-gateway', env: { AHP_MAX_FRAME_BYTES: String(MAX_FRAME_BYTES) } });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await gw?.stop();
  await store?.close();
});

describe('upgrade authentication', () => {
  it('answers 401 and opens no socket without a token, with a wrong token, or with a revoked one', async () => {
    expect(await refusal({})).toBe(401);
    expect(await refusal({ token: 'not-a-known-token' })).toBe(401);
    expect(await refusal({ token: 'not-a-known-token', via: 'query' })).toBe(401);
    expect(await refusal({ token: token('gamma') })).toBe(401);
    expect(await refusal({ token: token('gamma'), via: 'query' })).toBe(401);
  });

  it('accepts the token in the Authorization header and in the query', async () => {
    const viaHeader = track(await connectAgent(gw.wsUrl, { token: token('alpha'), via: 'header' }));
    expect((await viaHeader.hello()).agent.id).toBe('alpha');
    const viaQuery = track(await connectAgent(gw.wsUrl, { token: token('beta'), via: 'query' }));
    expect((await viaQuery.hello()).agent.id).toBe('beta');
  });
});

describe('handshake', () => {
  it('answers hello with welcome: session, identity from the token, gateway, heartbeat, limits', async () => {
    const { welcome } = await ready('alpha');
    expect(welcome).toMatchObject({
      type: 'welcome',
      protocol: PROTOCOL_VERSION,
      resumed: false,
      agent: { id: 'alpha', name: 'Alpha', team: 'red', role: 'lead' },
      gateway_id: gw.config.gatewayId,
      heartbeat_ms: gw.config.heartbeatMs,
      limits: { max_frame_bytes: MAX_FRAME_BYTES, max_in_flight: 256, hook_deadline_ms: 60_000, max_hook_deadline_ms: 60_000 },
    });
    expect(welcome.session_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('resumes the agent own session, and never another agent session', async () => {
    const first = await ready('alpha');
    await first.client.close();
    const resumed = await ready('alpha', { session_id: first.welcome.session_id, last_seq: 0 });
    expect(resumed.welcome).toMatchObject({ session_id: first.welcome.session_id, resumed: true });

    const other = await ready('beta', { session_id: first.welcome.session_id });
    expect(other.welcome.resumed).toBe(false);
    expect(other.welcome.session_id).not.toBe(first.welcome.session_id);
  });

  it('refuses requests before hello and a second hello, keeping the connection', async () => {
    const client = track(await connectAgent(gw.wsUrl, { token: token('alpha') }));
    const early = client.hook('pre-tool-use');
    expect(((await early.reply) as ErrorFrame).error.code).toBe('E_HANDSHAKE');
    const welcome = await client.hello();
    const again = (await client.request({ type: 'hello', id: 'again', protocol: PROTOCOL_VERSION, client: { name: 'x', version: '1' } })) as ErrorFrame;
    expect(again).toMatchObject({ type: 'error', id: 'again', error: { code: 'E_HANDSHAKE', retryable: false } });
    expect(client.isOpen).toBe(true);
    expect(welcome.agent.id).toBe('alpha');
  });

  it('answers an unsupported protocol version with an error, then closes with the "do not reconnect" code', async () => {
    const client = track(await connectAgent(gw.wsUrl, { token: token('alpha') }));
    const reply = (await client.request({ type: 'hello', id: 'v9', protocol: 9, client: { name: 'x', version: '1' } })) as ErrorFrame;
    expect(reply.error).toMatchObject({ code: 'E_UNSUPPORTED_VERSION', details: { supported: [PROTOCOL_VERSION] } });
    expect((await client.closed).code).toBe(CLOSE_CODES.UNSUPPORTED_VERSION);
  });

  it('lets two sessions of the same agent coexist; presence falls back to the one that stays', async () => {
    const first = await ready('alpha');
    const second = await ready('alpha');
    expect(second.welcome.session_id).not.toBe(first.welcome.session_id);
    for (const { client } of [first, second]) {
      const hook = client.hook('post-tool-use');
      await decideAsWorker(store, hook.id, 'post-tool-use');
      expect((await hook.reply).type).toBe('decision');
    }
    expect(first.client.isOpen && second.client.isOpen).toBe(true);

    await second.client.close();
    await vi.waitFor(async () => {
      const entry = (await store.stores.presence.list(Date.now())).find((e) => e.agent.id === 'alpha');
      expect(entry?.session_id).toBe(first.welcome.session_id);
    });
  });

  it('replaces the older connection of a resumed session with the "replaced" close code', async () => {
    const older = await ready('alpha');
    const newer = await ready('alpha', { session_id: older.welcome.session_id });
    expect((await older.client.closed).code).toBe(CLOSE_CODES.SESSION_REPLACED);
    const hook = newer.client.hook('post-tool-use');
    await decideAsWorker(store, hook.id, 'post-tool-use');
    expect((await hook.reply).type).toBe('decision');
  });
});

describe('bad frames', () => {
  it('answers every class of bad frame with its typed error and keeps serving the same connection', async () => {
    const { client } = await ready('alpha');
    const bystander = await ready('beta');

    client.send('{"type": "hook", ');
    expect((await client.error(null)).error.code).toBe('E_BAD_FRAME');

    client.send('[1, 2, 3]');
    expect((await client.error(null)).error).toMatchObject({ code: 'E_BAD_FRAME', message: expect.stringMatching(/array/) });

    client.send({ type: 'teleport', id: 'f-1' });
    expect((await client.error('f-1')).error.code).toBe('E_UNKNOWN_TYPE');

    client.send({ type: 'welcome', id: 'f-2' });
    expect((await client.error('f-2')).error.code).toBe('E_UNKNOWN_TYPE');

    const badHook = randomUUID();
    client.send({ type: 'hook', id: badHook, trigger: 'pre-lunch', context: {} });
    const invalid = await client.error(badHook);
    expect(invalid.error).toMatchObject({ code: 'E_INVALID_FRAME', details: { type: 'hook', issues: [{ path: 'trigger' }] } });

    client.send({ type: 'signal_response', id: 'f-3', response: { signal_id: randomUUID(), consumed_at: 'yesterday', action: 'acknowledge' }, extra: 1 });
    expect((await client.error('f-3')).error.code).toBe('E_INVALID_FRAME');

    client.send('{"type":"hook","id":"f-4","trigger":"stop","context":{"__proto__":{"polluted":true}}}');
    expect((await client.error('f-4')).error).toMatchObject({ code: 'E_INVALID_FRAME', details: { issues: [{ path: 'context.__proto__' }] } });

    client.send(Buffer.from([0x7b, 0x7d]));
    expect((await client.error(null)).error).toMatchObject({ code: 'E_BAD_FRAME', message: expect.stringMatching(/binary/) });

    // The same connection still completes a hook round trip, and the other agent never noticed.
    const hook = client.hook('pre-tool-use');
    await decideAsWorker(store, hook.id, 'pre-tool-use');
    expect(await hook.reply).toMatchObject({ type: 'decision', id: hook.id, decision: { allowed: true } });
    const other = bystander.client.hook('post-tool-use');
    await decideAsWorker(store, other.id, 'post-tool-use');
    expect((await other.reply).type).toBe('decision');
    expect(bystander.client.received.filter((frame) => frame.type === 'error')).toEqual([]);
    expect(client.invalid).toEqual([]);
  });

  it('answers a frame over max_frame_bytes with E_FRAME_TOO_LARGE, closes one over twice that with 1009; other connections are unaffected', async () => {
    const { client } = await ready('alpha');
    const bystander = await ready('beta');
    client.send({ type: 'hook', id: randomUUID(), trigger: 'stop', context: { blob: 'x'.repeat(MAX_FRAME_BYTES) } });
    expect((await client.error(null)).error).toMatchObject({ code: 'E_FRAME_TOO_LARGE', details: { max_frame_bytes: MAX_FRAME_BYTES } });
    expect(client.isOpen).toBe(true);
    client.send({ type: 'hook', id: randomUUID(), trigger: 'stop', context: { blob: 'x'.repeat(2 * MAX_FRAME_BYTES) } });
    expect((await client.closed).code).toBe(1009);
    const hook = bystander.client.hook('stop');
    await decideAsWorker(store, hook.id, 'stop');
    expect((await hook.reply).type).toBe('decision');
  });

  it('acknowledges inbox_ack for ids it does not hold (idempotent; the SDK liveness probe relies on it)', async () => {
    const { client } = await ready('alpha');
    expect(await client.request({ type: 'inbox_ack', id: 'probe-1', message_ids: ['ahp.sdk.liveness-probe'] })).toEqual({
      type: 'ack',
      id: 'probe-1',
    });
  });
});

describe('hook round trip', () => {
  it('enqueues a job without secrets and delivers exactly one decision when a worker decides', async () => {
    const { client, welcome } = await ready('alpha');
    const hook = client.hook('pre-tool-use', { context: { tool: { name: 'Bash', input: { command: 'rm -rf /tmp/x' } } } });
    const job = await waitForJob(store, hook.id);
    expect(job).toMatchObject({
      hook_id: hook.id,
      trigger: 'pre-tool-use',
      agent: { id: 'alpha', name: 'Alpha', team: 'red', role: 'lead' },
      session_id: welcome.session_id,
      context: { tool: { name: 'Bash', input: { command: 'rm -rf /tmp/x' } } },
    });
    expect(job.deadline_at).toBeGreaterThan(job.enqueued_at);
    const serialized = JSON.stringify(job);
    expect(serialized).not.toContain(token('alpha'));
    expect(serialized).not.toMatch(/token/i);

    const decided = await store.stores.hooks.decide(hook.id, workerDecision(hook.id, 'pre-tool-use'), Date.now());
    expect(decided.first).toBe(true);
    const frame = (await hook.reply) as DecisionFrame;
    expect(frame).toEqual({ type: 'decision', id: hook.id, decision: decided.decision });

    // A repeated decide routes the decision again (the feed is at-least-once); a second hook decided
    // after it marks the point where the gateway has seen the repeat, since the stream is ordered.
    await store.stores.hooks.decide(hook.id, workerDecision(hook.id, 'pre-tool-use'), Date.now());
    const marker = client.hook('post-tool-use');
    await decideAsWorker(store, marker.id, 'post-tool-use');
    await marker.reply;
    expect(client.decisionsFor(hook.id)).toHaveLength(1);
  });

  it('refuses a context its trigger does not define (the old §4.1 example: tool as a string) with E_INVALID_CONTEXT; nothing is recorded or queued', async () => {
    const { client } = await ready('alpha');
    const hook = client.hook('pre-tool-use', { context: { tool: 'bash', input: { command: 'rm -rf /' } } });
    const reply = await hook.reply;
    expect(reply).toMatchObject({ type: 'error', id: hook.id, error: { code: 'E_INVALID_CONTEXT', retryable: false, details: { trigger: 'pre-tool-use', issues: [{ path: 'context.tool' }, { path: 'context.input' }] } } });
    expect(await store.stores.hooks.get(hook.id)).toBeNull();
    expect(await store.queue.queueFor(hook.id).getJob(hook.id)).toBeUndefined();
    // Unknown top-level fields are named, including a claimed environment.
    const claimed = client.hook('pre-tool-use', { context: { tool: { name: 'Bash', input: { command: 'ls' } }, environment: 'development' } });
    expect(await claimed.reply).toMatchObject({ type: 'error', error: { code: 'E_INVALID_CONTEXT', details: { issues: [{ path: 'context.environment' }] } } });
    expect(client.decisionsFor(hook.id)).toEqual([]);
  });

  it('answers a re-sent hook id with the stored decision, also after a reconnect', async () => {
    const first = await ready('alpha');
    const hook = first.client.hook('pre-tool-use');
    const { decision } = await decideAsWorker(store, hook.id, 'pre-tool-use', [promptSignal(hook.id)]);
    expect(((await hook.reply) as DecisionFrame).decision).toEqual(decision);

    const again = first.client.hook('pre-tool-use', { id: hook.id });
    expect(((await again.reply) as DecisionFrame).decision).toEqual(decision);

    await first.client.close();
    const second = await ready('alpha', { session_id: first.welcome.session_id });
    const resent = second.client.hook('pre-tool-use', { id: hook.id });
    expect(((await resent.reply) as DecisionFrame).decision).toEqual(decision);
  });

  it('refuses a hook id that belongs to another agent with E_CONFLICT', async () => {
    const alpha = await ready('alpha');
    const beta = await ready('beta');
    const hook = alpha.client.hook('post-tool-use');
    await waitForJob(store, hook.id);
    const stolen = beta.client.hook('post-tool-use', { id: hook.id });
    expect(((await stolen.reply) as ErrorFrame).error.code).toBe('E_CONFLICT');
    await decideAsWorker(store, hook.id, 'post-tool-use');
    expect((await hook.reply).type).toBe('decision');
  });

  it('files a hook under another session of the same agent, never under another agent session', async () => {
    const alpha = await ready('alpha');
    const beta = await ready('beta');
    const stolen = beta.client.hook('post-tool-use', { session_id: alpha.welcome.session_id });
    expect(((await stolen.reply) as ErrorFrame).error.code).toBe('E_FORBIDDEN');

    // A bridge multiplexing several runs names each run's session.
    const run = beta.client.hook('post-tool-use', { session_id: 'bridge-run-2' });
    expect((await waitForJob(store, run.id)).session_id).toBe('bridge-run-2');
    await store.stores.hooks.decide(run.id, workerDecision(run.id, 'post-tool-use'), Date.now());
    expect((await run.reply).type).toBe('decision');
  });

  it('applies the failure policy at the deadline: fail-closed deny for pre-tool-use, fail-open for post-tool-use', async () => {
    const { client } = await ready('alpha');
    const pre = client.hook('pre-tool-use', { deadline_ms: 50 });
    const post = client.hook('post-tool-use', { deadline_ms: 50 });
    const preDecision = ((await pre.reply) as DecisionFrame).decision;
    const postDecision = ((await post.reply) as DecisionFrame).decision;
    expect(preDecision).toMatchObject({ hook_id: pre.id, allowed: false, intensity: 'block', decided_by: 'failure_policy', error: { code: 'E_TIMEOUT' } });
    expect(postDecision).toMatchObject({ hook_id: post.id, allowed: true, intensity: null, decided_by: 'failure_policy', error: { code: 'E_TIMEOUT' } });

    // A worker that finishes late changes nothing: the first decision stays.
    const late = await store.stores.hooks.decide(pre.id, workerDecision(pre.id, 'pre-tool-use'), Date.now());
    expect(late).toEqual({ first: false, decision: preDecision });
  });

  it('never lets a client extend the configured deadline', async () => {
    const { client } = await ready('alpha');
    const hook = client.hook('stop', { deadline_ms: FRAME_LIMITS.maxHookDeadlineMs });
    const job = await waitForJob(store, hook.id);
    expect(job.deadline_at - job.enqueued_at).toBe(gw.config.hookDeadlineMs);
    await store.stores.hooks.decide(hook.id, workerDecision(hook.id, 'stop'), Date.now());
    await hook.reply;
  });
});

describe('signal responses', () => {
  it('acks a valid response and a repeat; refuses unknown, foreign, invalid and conflicting ones', async () => {
    const alpha = await ready('alpha');
    const beta = await ready('beta');
    const hook = alpha.client.hook('pre-tool-use');
    const signal = promptSignal(hook.id);
    await decideAsWorker(store, hook.id, 'pre-tool-use', [signal]);
    await hook.reply;

    const consumedAt = new Date().toISOString();
    const response = (action: string, signalId = signal.header.id) => ({ signal_id: signalId, consumed_at: consumedAt, action });
    const send = (client: AgentClient, id: string, action: string, signalId?: string) =>
      client.request({ type: 'signal_response', id, response: response(action, signalId) });

    expect(await send(alpha.client, 's-1', 'acknowledge')).toEqual({ type: 'ack', id: 's-1' });
    // The same answer again (an SDK re-sending after a reconnect) is acknowledged again.
    expect(await send(alpha.client, 's-2', 'acknowledge')).toEqual({ type: 'ack', id: 's-2' });
    // Stamped again on the re-send: consumed_at is not part of the answer (protocol.md, idempotency).
    const restamped = { ...response('acknowledge'), consumed_at: new Date(Date.now() + 1000).toISOString() };
    expect(await alpha.client.request({ type: 'signal_response', id: 's-2b', response: restamped })).toEqual({ type: 'ack', id: 's-2b' });
    expect(await send(alpha.client, 's-3', 'dismiss')).toMatchObject({ type: 'error', id: 's-3', error: { code: 'E_CONFLICT' } });
    expect(await send(alpha.client, 's-4', 'acknowledge', randomUUID())).toMatchObject({ error: { code: 'E_NOT_FOUND' } });
    expect(await send(beta.client, 's-5', 'acknowledge')).toMatchObject({ error: { code: 'E_FORBIDDEN' } });

    const other = alpha.client.hook('pre-tool-use');
    const otherSignal = promptSignal(other.id);
    await decideAsWorker(store, other.id, 'pre-tool-use', [otherSignal]);
    await other.reply;
    const invalid = (await send(alpha.client, 's-6', 'abort', otherSignal.header.id)) as ErrorFrame;
    expect(invalid.error).toMatchObject({ code: 'E_INVALID_ACTION', details: { allowed: ['acknowledge', 'apply_suggestion', 'dismiss'] } });
  });
});

describe('presence', () => {
  it('writes the agent entry at welcome and removes it on close', async () => {
    const { client, welcome } = await ready('beta');
    const entries = await store.stores.presence.list(Date.now());
    expect(entries).toContainEqual(
      expect.objectContaining({ agent: expect.objectContaining({ id: 'beta' }), session_id: welcome.session_id, gateway_id: gw.config.gatewayId }),
    );
    await client.close();
    await vi.waitFor(async () => {
      const after = await store.stores.presence.list(Date.now());
      expect(after.find((entry) => entry.session_id === welcome.session_id)).toBeUndefined();
    }, WAIT);
  });

  it('lists this gateway with its connection count', async () => {
    await ready('alpha');
    await vi.waitFor(async () => {
      const gateways = await store.stores.presence.listGateways(Date.now());
      const self = gateways.find((info) => info.gateway_id === gw.config.gatewayId);
      expect(self).toMatchObject({ draining: false });
      expect(self!.connections).toBeGreaterThanOrEqual(1);
    }, WAIT);
  });
});

describe('health', () => {
  it('reports liveness and readiness', async () => {
    const health = await fetch(`${gw.httpUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', gateway_id: gw.config.gatewayId });
    const readiness = await fetch(`${gw.httpUrl}/readyz`);
    expect(readiness.status).toBe(200);
    expect(await readiness.json()).toEqual({ status: 'ready', gateway_id: gw.config.gatewayId, checks: { draining: 'ok', redis: 'ok', queue: 'ok' } });
  });

  it('logs no token', () => {
    const logs = gw.logs.join('\n');
    for (const agent of Object.values(gw.agents)) expect(logs).not.toContain(agent.token);
  });
});
