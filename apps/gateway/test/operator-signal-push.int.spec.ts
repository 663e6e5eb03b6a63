/**
 * Operators pushing prompt and aid signals to agents (docs/spec/spectrum-and-signals.md#operator-signals), on two real in-process
 * gateways sharing the run's private Redis, with real agent sockets: the operator calls gateway A,
 * the agent is connected to gateway B and gets a `signal` push there (numbered with its session's
 * `seq`), answers it with `signal_response`, and the signal log shows both. An agent that is
 * offline gets the signal when it connects. A viewer, an operator scoped to other teams, and a
 * block or control intensity are refused, and then nothing is stored or pushed.
 */
import { randomUUID } from 'node:crypto';
import {
  AuditListResponseSchema,
  OperatorErrorBodySchema,
  OperatorSignalResponseSchema,
  SignalLogListResponseSchema,
  type ServerFrame,
  type Signal,
} from '@ahp/protocol';
import { readSignalLog } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestOperatorEntry, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'red-1', name: 'Red one', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'blue-1', name: 'Blue one', token: newToken(), team: 'blue', role: 'teammate' },
  { id: 'red-2', name: 'Red two', token: newToken(), team: 'red', role: 'teammate' },
];
const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-root', name: 'Root', role: 'admin', token: newToken() },
  { id: 'op-blue', name: 'Blue approver', role: 'approver', token: newToken(), scope: { teams: ['blue'] } },
  { id: 'op-red', name: 'Red approver', role: 'approver', token: newToken(), scope: { teams: ['red'] } },
  { id: 'op-viv', name: 'Viewer', role: 'viewer', token: newToken() },
];

let gwA: TestGateway;
let gwB: TestGateway;
let store: TestStore;
let red1: AgentClient;
let blue1: AgentClient;

beforeAll(async () => {
  gwA = await startTestGateway({ name: 'operator-signal-push', agents: AGENTS, operators: OPERATORS });
  gwB = await startTestGateway({ keyPrefix: gwA.keyPrefix, agents: AGENTS, operators: OPERATORS });
  store = await openTestStore(gwA.keyPrefix, testLogger());
  red1 = (await connectReady(gwB.wsUrl, gwB.agents['red-1']!.token)).client;
  blue1 = (await connectReady(gwB.wsUrl, gwB.agents['blue-1']!.token)).client;
});

afterAll(async () => {
  await red1?.close();
  await blue1?.close();
  await store?.close();
  await gwB?.stop();
  await gwA?.stop();
});

async function call(gw: TestGateway, operator: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${gw.operators[operator]!.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gw.httpUrl}/v1/operator${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

function signalPushes(client: AgentClient): Extract<ServerFrame, { type: 'signal' }>[] {
  return client.received.filter((frame): frame is Extract<ServerFrame, { type: 'signal' }> => frame.type === 'signal');
}

async function logLength(): Promise<number> {
  return (await readSignalLog(store.redis, store.keys, { count: 10_000 })).length;
}

/**
 * Sends `agentId` an aid through gateway `gw`, waits for its push on `client` and answers it: since
 * a connection's operator signals are pushed oldest first, every signal that was still due on
 * `client` arrived before it. Returns its id.
 */
async function barrier(gw: TestGateway, client: AgentClient, agentId: string): Promise<string> {
  const sent = await call(gw, 'op-root', 'POST', `/agents/${agentId}/signals`, { intensity: 'aid', reason: 'barrier' });
  expect(sent.status).toBe(201);
  const id = OperatorSignalResponseSchema.parse(sent.json).signal.header.id;
  const push = (await client.next((frame) => frame.type === 'signal' && frame.signal.header.id === id)) as Extract<ServerFrame, { type: 'signal' }>;
  expect(await answer(client, push.signal, 'suggestion_deferred')).toMatchObject({ type: 'ack' });
  return id;
}

/** Answers `signal` on `client` and returns the reply frame. */
function answer(client: AgentClient, signal: Signal, action: string): Promise<ServerFrame> {
  return client.request({ type: 'signal_response', id: `r-${randomUUID()}`, response: { signal_id: signal.header.id, consumed_at: new Date().toISOString(), action } });
}

describe('operator signals pushed to agents', () => {
  it("delivers an operator's prompt to the agent on another gateway, records its answer, and logs both", async () => {
    const before = red1.received.filter((frame) => 'seq' in frame).length;
    const sent = await call(gwA, 'op-red', 'POST', '/agents/red-1/signals', {
      intensity: 'prompt',
      message: 'Stop migrating tables until the backup finishes',
      severity: 'high',
      suggestions: ['wait for backup-42', 'work on the report instead'],
    });
    expect(sent.status).toBe(201);
    const body = OperatorSignalResponseSchema.parse(sent.json);
    expect(body.delivery).toBe('pushed');
    expect(body.signal.header).toMatchObject({ intensity: 'prompt', source: 'operator:op-red', type: 'operator-prompt' });

    const push = (await red1.next((frame) => frame.type === 'signal')) as Extract<ServerFrame, { type: 'signal' }>;
    expect(push.signal).toEqual(body.signal);
    expect(push.signal.payload).toMatchObject({ level: 'prompting', severity: 'high', message: 'Stop migrating tables until the backup finishes', suggestions: ['wait for backup-42', 'work on the report instead'] });
    // Numbered in the session's push sequence, after whatever was pushed before.
    expect(push.seq).toBe(before + 1);

    const reply = await answer(red1, push.signal, 'acknowledge');
    expect(reply).toMatchObject({ type: 'ack' });
    expect((await store.stores.signals.get(push.signal.header.id))?.response?.action).toBe('acknowledge');

    const log = (await readSignalLog(store.redis, store.keys, { count: 10_000 })).filter((record) => record.entry.signal_id === push.signal.header.id);
    expect(log.map((record) => [record.kind, record.agentId, record.entry.source, record.entry.intensity, record.entry.consumed, record.entry.action, record.entry.hook])).toEqual([
      ['signal', 'red-1', 'operator:op-red', 'prompt', false, undefined, undefined],
      ['response', 'red-1', 'operator:op-red', 'prompt', true, 'acknowledge', undefined],
    ]);
    const listed = await call(gwA, 'op-root', 'GET', '/signals?agent=red-1');
    expect(listed.status).toBe(200);
    expect(SignalLogListResponseSchema.parse(listed.json).lines).toMatchObject([
      {
        signal_id: push.signal.header.id,
        source: 'operator:op-red',
        intensity: 'prompt',
        consumed: true,
        action: 'acknowledge',
        correlation_id: push.signal.header.id,
        // The log keeps what the operator wrote, so every operator (and the export) sees it.
        subject: { m: 'Stop migrating tables until the backup finishes', s: ['wait for backup-42', 'work on the report instead'] },
      },
    ]);

    const audit = await call(gwA, 'op-root', 'GET', '/audit?action=signal.send');
    expect(AuditListResponseSchema.parse(audit.json).entries).toMatchObject([
      { operator: { id: 'op-red' }, action: 'signal.send', target: 'red-1', outcome: 'applied', details: { intensity: 'prompt', signal_id: push.signal.header.id, delivery: 'pushed' } },
    ]);

    // Answered: a new connection of the agent does not get it again.
    await red1.close();
    red1 = (await connectReady(gwA.wsUrl, gwA.agents['red-1']!.token)).client;
    const marker = await barrier(gwB, red1, 'red-1');
    expect(signalPushes(red1).map((frame) => frame.signal.header.id)).toEqual([marker]);
  });

  it('keeps an aid for an offline agent and pushes it when the agent connects, and again on every new connection until answered', async () => {
    const sent = await call(gwB, 'op-root', 'POST', '/agents/red-2/signals', {
      intensity: 'aid',
      reason: 'The nightly report failed on your last change',
      suggestions: [{ type: 'follow_up', description: 'Re-run the report tests' }],
      ttl_ms: 60_000,
    });
    expect(sent.status).toBe(201);
    const body = OperatorSignalResponseSchema.parse(sent.json);
    expect(body.delivery).toBe('queued');

    const first = (await connectReady(gwA.wsUrl, gwA.agents['red-2']!.token)).client;
    const push = (await first.next((frame) => frame.type === 'signal')) as Extract<ServerFrame, { type: 'signal' }>;
    expect(push.signal.header.id).toBe(body.signal.header.id);
    expect(push.signal.payload).toMatchObject({ level: 'aiding', context: 'The nightly report failed on your last change' });
    await first.close();

    const second = (await connectReady(gwB.wsUrl, gwB.agents['red-2']!.token)).client;
    const repeat = (await second.next((frame) => frame.type === 'signal')) as Extract<ServerFrame, { type: 'signal' }>;
    expect(repeat.signal.header.id).toBe(body.signal.header.id);
    // A prompt action does not answer an aid.
    expect(await answer(second, repeat.signal, 'acknowledge')).toMatchObject({ type: 'error', error: { code: 'E_INVALID_ACTION' } });
    expect(await answer(second, repeat.signal, 'suggestion_deferred')).toMatchObject({ type: 'ack' });
    await second.close();
    expect(await store.redis.zCard(store.keys.operatorSignals('red-2'))).toBeLessThanOrEqual(1);
    const third = (await connectReady(gwA.wsUrl, gwA.agents['red-2']!.token)).client;
    const marker = await barrier(gwA, third, 'red-2');
    expect(signalPushes(third).map((frame) => frame.signal.header.id)).toEqual([marker]);
    await third.close();
  });

  it('refuses a viewer, an operator scoped to other teams, an unknown agent, and block or control; nothing is stored or pushed', async () => {
    const logBefore = await logLength();
    const redBefore = signalPushes(red1).length;
    const blueBefore = signalPushes(blue1).length;
    const prompt = { intensity: 'prompt', message: 'hello' };

    const viewer = await call(gwA, 'op-viv', 'POST', '/agents/red-1/signals', prompt);
    expect(viewer.status).toBe(403);
    expect(OperatorErrorBodySchema.parse(viewer.json).error.code).toBe('E_FORBIDDEN');

    const outOfScope = await call(gwA, 'op-blue', 'POST', '/agents/red-1/signals', prompt);
    expect(outOfScope.status).toBe(404);
    expect(OperatorErrorBodySchema.parse(outOfScope.json).error.code).toBe('E_NOT_FOUND');
    // An agent that does not exist answers the same.
    const unknown = await call(gwA, 'op-blue', 'POST', '/agents/nobody/signals', prompt);
    expect(unknown.status).toBe(404);

    for (const body of [
      { intensity: 'block', message: 'stop' },
      { intensity: 'control', message: 'modify' },
      { intensity: 'prompt' },
      { intensity: 'prompt', message: 'x', severity: 'apocalyptic' },
      { intensity: 'aid', reason: 'x', suggestions: ['not an object'] },
    ]) {
      const refused = await call(gwA, 'op-root', 'POST', '/agents/blue-1/signals', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      const error = OperatorErrorBodySchema.parse(refused.json).error;
      expect(error.code).toBe('E_INVALID_FRAME');
      if (body.intensity === 'block' || body.intensity === 'control') expect(error.message).toContain('prompt');
    }

    // A scoped operator may signal its own team's agents.
    const inScope = await call(gwA, 'op-blue', 'POST', '/agents/blue-1/signals', prompt);
    expect(inScope.status).toBe(201);
    const push = (await blue1.next((frame) => frame.type === 'signal')) as Extract<ServerFrame, { type: 'signal' }>;
    expect(push.signal.header.source).toBe('operator:op-blue');

    // Exactly the one accepted signal was stored and pushed: red-1 got nothing before the barrier.
    expect(await logLength()).toBe(logBefore + 1);
    expect(signalPushes(blue1)).toHaveLength(blueBefore + 1);
    const marker = await barrier(gwA, red1, 'red-1');
    expect(signalPushes(red1).slice(redBefore).map((frame) => frame.signal.header.id)).toEqual([marker]);
    expect(await store.stores.operatorSignals.pending('red-1', Date.now())).toEqual([]);
  });
});
