/**
 * Answers that fail with a retryable error are sent again (KI-2 in docs/reliability.md), against a
 * scripted gateway: until the gateway takes the answer, refuses it for good, the request's deadline
 * comes, or the client closes.
 */
import type { InboxMessage, ProtocolState } from '@ahp/protocol/wire';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../src/index.js';
import type { AhpClient } from '../src/index.js';
import { ScriptedGateway, TEST_AGENT, TEST_TOKEN, eventually } from './support/scripted-gateway.js';

const NOW = '2026-02-09T10:00:00Z';
const gateways: ScriptedGateway[] = [];
const clients: AhpClient[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(gateways.splice(0).map((gateway) => gateway.stop()));
});

async function setup(): Promise<{ gw: ScriptedGateway; client: AhpClient }> {
  const gw = await ScriptedGateway.start();
  gateways.push(gw);
  const client = await connect({ url: gw.url, token: TEST_TOKEN, reconnect: { initialDelayMs: 5, maxDelayMs: 20 }, connectTimeoutMs: 4_000 });
  clients.push(client);
  return { gw, client };
}

function planRequest(id: string, deadline?: string): ProtocolState {
  return {
    request_id: id,
    type: 'plan_approval',
    sender: 'dev',
    target: { kind: 'agent', agent: TEST_AGENT.id },
    status: 'pending',
    payload: { plan: { title: 'Ship it', steps: [{ id: 's1', description: 'do it', dependencies: [], status: 'pending', tools_expected: [] }] } },
    created_at: NOW,
    updated_at: NOW,
    ...(deadline === undefined ? {} : { deadline }),
  };
}

function requestMessage(id: string, requestId: string): InboxMessage {
  return { id, from: 'dev', to: TEST_AGENT.id, content: 'please review', type: 'plan_approval_request', metadata: { request_id: requestId }, sent_at: NOW };
}

const unavailable = { code: 'E_UNAVAILABLE', message: 'deciding the request failed; retry shortly', retryable: true, retry_after_ms: 20 } as const;

describe('answering a request after a retryable failure', () => {
  it('sends the answer again, under a new frame id, until the gateway takes it; the handler runs once', async () => {
    const { gw, client } = await setup();
    let responses = 0;
    gw.script = (frame, peer) => {
      if (frame.type === 'inbox_ack') peer.send({ type: 'ack', id: frame.id });
      if (frame.type !== 'response') return;
      responses += 1;
      if (responses <= 2) {
        peer.send({ type: 'error', id: frame.id, error: unavailable });
        return;
      }
      const approved: ProtocolState = { ...planRequest('req_k2'), status: 'approved', decided_by: TEST_AGENT.id, decided_at: NOW };
      peer.send({ type: 'ack', id: frame.id, result: { kind: 'request', request: approved } });
    };
    const handled: string[] = [];
    client.onRequest('plan_approval', (request) => {
      handled.push(request.request_id);
      return { approve: true, feedback: 'LGTM' };
    });
    gw.current!.send({ type: 'request_update', seq: 1, request: planRequest('req_k2') });
    gw.current!.send({ type: 'inbox', seq: 2, message: requestMessage('msg-k2', 'req_k2') });

    await eventually(() => gw.framesOf('inbox_ack').some((frame) => frame.message_ids.includes('msg-k2')), 'the request message acknowledged after the accepted answer');
    const sent = gw.framesOf('response');
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((frame) => frame.id)).size).toBe(3);
    expect(sent.every((frame) => JSON.stringify(frame.response) === JSON.stringify(sent[0]!.response))).toBe(true);
    expect(handled).toEqual(['req_k2']);
  });

  it('stops at a final refusal and acknowledges the request message', async () => {
    const { gw, client } = await setup();
    let responses = 0;
    gw.script = (frame, peer) => {
      if (frame.type === 'inbox_ack') peer.send({ type: 'ack', id: frame.id });
      if (frame.type !== 'response') return;
      responses += 1;
      peer.send({ type: 'error', id: frame.id, error: responses === 1 ? unavailable : { code: 'E_CONFLICT', message: 'already rejected', retryable: false } });
    };
    client.onRequest('plan_approval', () => ({ approve: true }));
    gw.current!.send({ type: 'request_update', seq: 1, request: planRequest('req_k3') });
    gw.current!.send({ type: 'inbox', seq: 2, message: requestMessage('msg-k3', 'req_k3') });
    await eventually(() => gw.framesOf('inbox_ack').some((frame) => frame.message_ids.includes('msg-k3')), 'the request message acknowledged');
    expect(gw.framesOf('response')).toHaveLength(2);
  });

  it('gives up when the request’s deadline comes before the next attempt', async () => {
    const { gw, client } = await setup();
    gw.script = (frame, peer) => {
      if (frame.type === 'response') peer.send({ type: 'error', id: frame.id, error: { ...unavailable, retry_after_ms: 60_000 } });
    };
    await pushState(gw, client, planRequest('req_k4', new Date(Date.now() + 30_000).toISOString()));
    await expect(client.answerRequest('req_k4', { approve: true })).rejects.toMatchObject({ code: 'E_UNAVAILABLE' });
    expect(gw.framesOf('response')).toHaveLength(1);
  });

  it('ends a pending retry at once when the client closes', async () => {
    const { gw, client } = await setup();
    gw.script = (frame, peer) => {
      if (frame.type === 'response') peer.send({ type: 'error', id: frame.id, error: { ...unavailable, retry_after_ms: 60_000 } });
    };
    await pushState(gw, client, planRequest('req_k5'));
    const answering = client.answerRequest('req_k5', { approve: true });
    await eventually(() => gw.framesOf('response').length === 1, 'the first attempt');
    const rejected = expect(answering).rejects.toMatchObject({ code: 'E_CLOSED' });
    await client.close();
    await rejected;
    expect(gw.framesOf('response')).toHaveLength(1);
  });
});

/** Pushes a request's state and waits until the client has processed it (answerRequest needs it). */
async function pushState(gw: ScriptedGateway, client: AhpClient, request: ProtocolState): Promise<void> {
  const seen = new Promise<void>((resolve) => {
    const off = client.on('request_update', (state) => {
      if (state.request_id !== request.request_id) return;
      off();
      resolve();
    });
  });
  gw.current!.send({ type: 'request_update', seq: 1, request });
  await seen;
}
