/**
 * The team side of the client against a scripted gateway: plans and their gate, the one inbox
 * consumer (routing, deduplication across reconnects, acknowledgements), answering requests and
 * the shutdown that ends the idle loop. The scripted peer plays the gateway's part of each flow.
 */
import type { InboxMessage, Plan, ProtocolState } from '@ahp/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { AhpClientError, connect } from '../src/index.js';
import type { AhpClient } from '../src/index.js';
import { decisionFor } from './support/fixtures.js';
import { ScriptedGateway, TEST_AGENT, TEST_TOKEN, eventually } from './support/scripted-gateway.js';
import type { GatewayPeer } from './support/scripted-gateway.js';

const NOW = '2026-02-09T10:00:00Z';
const LATER = '2026-02-09T10:02:00Z';
const PLAN: Plan = {
  title: 'Speed up the orders report',
  steps: [{ id: 's1', description: 'Add an index on orders.created_at', dependencies: [], status: 'pending', tools_expected: ['db.migrate'] }],
};

const gateways: ScriptedGateway[] = [];
const clients: AhpClient[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(gateways.splice(0).map((gateway) => gateway.stop()));
});

async function setup(): Promise<{ gw: ScriptedGateway; client: AhpClient; push: (peer: GatewayPeer, frame: PushBody) => void }> {
  const gw = await ScriptedGateway.start();
  gateways.push(gw);
  const client = await connect({ url: gw.url, token: TEST_TOKEN, reconnect: { initialDelayMs: 5, maxDelayMs: 20 }, connectTimeoutMs: 4_000 });
  clients.push(client);
  // One seq counter across peers: a resumed session never numbers below what the client saw.
  let seq = 0;
  const push = (peer: GatewayPeer, frame: PushBody): void => peer.send({ ...frame, seq: ++seq });
  return { gw, client, push };
}

type PushBody = { type: 'request_update'; request: ProtocolState } | { type: 'inbox'; message: InboxMessage };

function message(id: string, extra: Partial<InboxMessage> = {}): InboxMessage {
  return { id, from: 'lead', to: TEST_AGENT.id, content: `content of ${id}`, type: 'message', metadata: {}, sent_at: NOW, ...extra };
}

/** Acknowledges every frame that expects an `ack` without a result. */
function ackInboxAcks(frame: { type: string; id: string }, peer: GatewayPeer): boolean {
  if (frame.type !== 'inbox_ack') return false;
  peer.send({ type: 'ack', id: frame.id });
  return true;
}

describe('submitPlan', () => {
  it('gates pre-tool-use hooks until the plan is decided, then resolves with the decision', async () => {
    const { gw, client, push } = await setup();
    let pending: ProtocolState | undefined;
    gw.script = (frame, peer) => {
      if (ackInboxAcks(frame, peer)) return;
      if (frame.type === 'hook') peer.send({ type: 'decision', id: frame.id, decision: decisionFor(frame.id, frame.trigger, []) });
      if (frame.type === 'request' && frame.request.type === 'plan_approval') {
        pending = {
          request_id: frame.request.request_id,
          type: 'plan_approval',
          sender: TEST_AGENT.id,
          target: frame.request.target,
          status: 'pending',
          payload: frame.request.payload,
          created_at: NOW,
          updated_at: NOW,
        };
        peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: pending } });
      }
    };

    const decision = client.submitPlan(PLAN, { target: 'lead' });
    await eventually(() => pending, 'the request frame');
    expect(gw.framesOf('request')[0]!.request).toMatchObject({ type: 'plan_approval', target: { kind: 'agent', agent: 'lead' }, payload: { plan: PLAN } });

    const gated = await client.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } }).catch((error: unknown) => error);
    expect(gated).toBeInstanceOf(AhpClientError);
    expect(gated).toMatchObject({ code: 'E_PLAN_PENDING', retryable: true, details: { request_id: pending!.request_id } });
    expect(gw.framesOf('hook')).toEqual([]);

    const approved: ProtocolState = { ...pending!, status: 'approved', updated_at: LATER, decided_by: 'lead', decided_at: LATER, feedback: 'LGTM' };
    const response = message('msg-r1', { type: 'plan_approval_response', content: 'LGTM', metadata: { request_id: pending!.request_id, approve: true } });
    push(gw.current!, { type: 'request_update', request: approved });
    push(gw.current!, { type: 'inbox', message: response });

    await expect(decision).resolves.toMatchObject({ requestId: pending!.request_id, status: 'approved', approved: true, feedback: 'LGTM', decidedBy: 'lead' });
    await eventually(() => gw.framesOf('inbox_ack').some((frame) => frame.message_ids.includes('msg-r1')), 'the response acknowledged');
    await expect(client.hook('pre-tool-use', { tool: { name: 'db.migrate', input: {} } })).resolves.toMatchObject({ allowed: true });
    expect(gw.invalid).toEqual([]);
  });

  it('asks again for the state when a decision arrives without it', async () => {
    const { gw, client, push } = await setup();
    let opens = 0;
    let open: ProtocolState | undefined;
    gw.script = (frame, peer) => {
      if (ackInboxAcks(frame, peer)) return;
      if (frame.type !== 'request' || frame.request.type !== 'plan_approval') return;
      opens += 1;
      open ??= {
        request_id: frame.request.request_id,
        type: 'plan_approval',
        sender: TEST_AGENT.id,
        target: frame.request.target,
        status: 'pending',
        payload: frame.request.payload,
        created_at: NOW,
        updated_at: NOW,
      };
      const state: ProtocolState = opens === 1 ? open : { ...open, status: 'rejected', updated_at: LATER, decided_by: 'op-maria', decided_at: LATER, feedback: 'split s1' };
      peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: state } });
    };
    const decision = client.submitPlan(PLAN);
    await eventually(() => open, 'the request');
    push(gw.current!, { type: 'inbox', message: message('msg-r2', { type: 'plan_approval_response', metadata: { request_id: open!.request_id, approve: false } }) });

    await expect(decision).resolves.toMatchObject({ status: 'rejected', approved: false, feedback: 'split s1', decidedBy: 'op-maria' });
    expect(gw.framesOf('request').map((frame) => frame.request.request_id)).toEqual([open!.request_id, open!.request_id]);
    expect(gw.framesOf('request')[0]!.request.target).toEqual({ kind: 'operators' });
  });
});

describe('idle and the inbox', () => {
  it('hands each message to the application once, also when it is delivered again after a reconnect', async () => {
    const { gw, client, push } = await setup();
    // The first gateway never acknowledges the inbox_ack: as if it died before storing it.
    gw.script = () => undefined;
    push(gw.current!, { type: 'inbox', message: message('msg-1') });
    await expect(client.idle()).resolves.toEqual({ kind: 'message', message: message('msg-1') });
    await eventually(() => gw.framesOf('inbox_ack').some((frame) => frame.message_ids.includes('msg-1')), 'an ack for msg-1');

    const waiting = client.idle();
    gw.script = (frame, peer) => void ackInboxAcks(frame, peer);
    gw.current!.terminate();
    const second = await eventually(() => (gw.peers.length === 2 && gw.peers[1]!.sessionId !== undefined ? gw.peers[1] : undefined), 'the reconnect');
    push(second, { type: 'inbox', message: message('msg-1') });
    push(second, { type: 'inbox', message: message('msg-2', { type: 'idle_notification' }) });

    await expect(waiting).resolves.toEqual({ kind: 'message', message: message('msg-2', { type: 'idle_notification' }) });
    await eventually(() => second.frames.filter((frame) => frame.type === 'inbox_ack').length >= 2, 'both acknowledged on the new connection');
    // msg-1 is acknowledged again: the pending inbox_ack is re-sent, and its re-delivery is acknowledged, never returned.
    const acked = new Set(second.frames.flatMap((frame) => (frame.type === 'inbox_ack' ? frame.message_ids : [])));
    expect([...acked].sort()).toEqual(['msg-1', 'msg-2']);
    await expect(client.idle({ timeoutMs: 30 })).resolves.toEqual({ kind: 'timeout' });
  });

  it('sends messages and events, and rejects idle waiters when the client closes', async () => {
    const { gw, client } = await setup();
    gw.script = (frame, peer) => {
      if (frame.type === 'send') {
        peer.send({ type: 'ack', id: frame.id, result: { kind: 'message', message: { id: 'msg-s', from: TEST_AGENT.id, sent_at: NOW, metadata: {}, ...frame.message } } });
      } else if (frame.type === 'event') {
        peer.send({ type: 'ack', id: frame.id });
      }
    };
    await expect(client.send('lead', 'done with s1', { type: 'idle_notification' })).resolves.toMatchObject({ id: 'msg-s', to: 'lead', type: 'idle_notification' });
    await client.report({ kind: 'control_signal', control_signal: { step_id: 's1', control: 'step_done', format: 'structured' } });
    expect(gw.framesOf('event')[0]!.event.kind).toBe('control_signal');
    await expect(client.send('lead', 'x', { type: 'shutdown_request' as never })).rejects.toMatchObject({ code: 'E_INVALID_FRAME' });

    const waiting = expect(client.idle()).rejects.toMatchObject({ code: 'E_CLOSED' });
    await client.close();
    await waiting;
  });
});

describe('requests addressed to this agent', () => {
  function shutdownRequest(id: string): ProtocolState {
    return { request_id: id, type: 'shutdown', sender: 'lead', target: { kind: 'agent', agent: TEST_AGENT.id }, status: 'pending', payload: { reason: 'done' }, created_at: NOW, updated_at: NOW };
  }

  it('holds a request until a handler registers; an approved shutdown ends the idle loop and disconnects', async () => {
    const { gw, client, push } = await setup();
    gw.script = (frame, peer) => {
      if (ackInboxAcks(frame, peer)) return;
      if (frame.type === 'response') {
        const approved: ProtocolState = { ...shutdownRequest('req_s1'), status: 'approved', updated_at: LATER, decided_by: TEST_AGENT.id, decided_at: LATER };
        peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: approved } });
      }
    };
    const idle = client.idle();
    push(gw.current!, { type: 'request_update', request: shutdownRequest('req_s1') });
    push(gw.current!, { type: 'inbox', message: message('msg-q1', { type: 'shutdown_request', metadata: { request_id: 'req_s1' } }) });

    const seen: ProtocolState[] = [];
    client.onRequest('shutdown', (request) => {
      seen.push(request);
      return { approve: true, feedback: 'stopping' };
    });

    await expect(idle).resolves.toMatchObject({ kind: 'shutdown', request: { request_id: 'req_s1', status: 'approved' } });
    expect(seen.map((request) => request.payload)).toEqual([{ reason: 'done' }]);
    expect(gw.framesOf('response')[0]!.response).toEqual({ request_id: 'req_s1', type: 'shutdown_response', approve: true, feedback: 'stopping' });
    expect(gw.framesOf('inbox_ack').flatMap((frame) => frame.message_ids)).toContain('msg-q1');
    await expect(gw.current!.closed).resolves.toBe(1000);
    await eventually(() => client.state === 'closed', 'the client closed');
  });

  it('acknowledges a request that was settled before it arrived, without calling the handler', async () => {
    const { gw, client, push } = await setup();
    gw.script = (frame, peer) => void ackInboxAcks(frame, peer);
    const calls: string[] = [];
    client.onRequest('shutdown', (request) => {
      calls.push(request.request_id);
      return { approve: true };
    });
    push(gw.current!, { type: 'request_update', request: { ...shutdownRequest('req_s2'), status: 'expired', updated_at: LATER, decided_at: LATER } });
    push(gw.current!, { type: 'inbox', message: message('msg-q2', { type: 'shutdown_request', metadata: { request_id: 'req_s2' } }) });
    await eventually(() => gw.framesOf('inbox_ack').some((frame) => frame.message_ids.includes('msg-q2')), 'the ack');
    expect(calls).toEqual([]);
    expect(gw.framesOf('response')).toEqual([]);
  });

  it('answers with reviewPlan and refuses to answer a request it has not received', async () => {
    const { gw, client } = await setup();
    gw.script = (frame, peer) => {
      if (frame.type === 'response') peer.send({ type: 'error', id: frame.id, error: { code: 'E_CONFLICT', message: 'already rejected', retryable: false } });
    };
    await expect(client.reviewPlan('req_p9', true, 'LGTM')).rejects.toMatchObject({ code: 'E_CONFLICT' });
    expect(gw.framesOf('response')[0]!.response).toEqual({ request_id: 'req_p9', type: 'plan_approval_response', approve: true, feedback: 'LGTM' });
    await expect(client.answerRequest('req_unknown', { approve: true })).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });
});
