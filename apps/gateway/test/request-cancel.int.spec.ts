/**
 * `cancel` on one real gateway (in-process, port 0, the run's private Redis), from raw `ws`
 * clients: the addressee of a withdrawn request is told (a `request_update` and a cancellation
 * notice in its inbox, protocol.md §4.1), and the sender, who withdrew it itself, gets only its
 * `ack` — no message in its own inbox to acknowledge.
 */
import { randomUUID } from 'node:crypto';
import type { InboxPushFrame, ProtocolState, RequestUpdateFrame } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'lead', name: 'Lead', token: newToken(), team: 'red', role: 'lead' },
  { id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'teammate' },
];

let gw: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ name: 'request-cancel', agents: AGENTS });
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

function update(client: AgentClient, id: string, status: ProtocolState['status']): Promise<RequestUpdateFrame> {
  return client.next((frame) => frame.type === 'request_update' && frame.request.request_id === id && frame.request.status === status) as Promise<RequestUpdateFrame>;
}

function inbox(client: AgentClient, id: string, type: string): Promise<InboxPushFrame> {
  return client.next((frame) => frame.type === 'inbox' && frame.message.metadata.request_id === id && frame.message.type === type) as Promise<InboxPushFrame>;
}

describe('cancel', () => {
  it('tells the addressee that the request is over, and leaves the sender no message about its own act', async () => {
    const lead = await ready('lead');
    const alice = await ready('alice');
    const id = `req_${randomUUID()}`;
    await lead.request({ type: 'request', id: 'open', request: { request_id: id, type: 'shutdown', target: { kind: 'agent', agent: 'alice' }, payload: { reason: 'all done' } } });
    await update(alice, id, 'pending');
    await inbox(alice, id, 'shutdown_request');

    const cancelled = await lead.request({ type: 'cancel', id: 'withdraw', request_id: id });
    expect(cancelled).toMatchObject({ type: 'ack', id: 'withdraw', result: { kind: 'request', request: { status: 'cancelled', decided_by: 'lead' } } });

    expect((await update(alice, id, 'cancelled')).request).toMatchObject({ decided_by: 'lead' });
    expect((await inbox(alice, id, 'shutdown_response')).message).toMatchObject({ from: 'lead', to: 'alice', metadata: { status: 'cancelled', approve: false } });
    // What each inbox holds in Redis: the addressee's notice (its request message withdrawn), nothing for the sender.
    expect((await store.stores.inboxes.pending('alice')).map((entry) => [entry.message.type, entry.message.metadata?.['request_id']])).toEqual([['shutdown_response', id]]);
    expect(await store.stores.inboxes.pending('lead')).toEqual([]);
  });

  it('tells nobody when the request was addressed to the operators (the console follows the request itself)', async () => {
    const alice = await ready('alice');
    const id = `req_${randomUUID()}`;
    await alice.request({
      type: 'request',
      id: 'open',
      request: { request_id: id, type: 'intervention', target: { kind: 'operators' }, payload: { reason: 'MAX_ITER', summary: 'stuck on a flaky test' } },
    });
    expect(await alice.request({ type: 'cancel', id: 'withdraw', request_id: id })).toMatchObject({ type: 'ack', result: { request: { status: 'cancelled' } } });
    const about = (await store.stores.inboxes.pending('alice')).filter((entry) => entry.message.metadata?.['request_id'] === id);
    expect(about).toEqual([]);
  });
});
