/**
 * Inbox and request bounds through a real gateway (Nest app, raw `ws` clients, the run's Redis):
 * a send to a full inbox is refused to the sender with E_RATE_LIMITED while the recipient keeps
 * receiving and acknowledging; an entry stored before the size checks, which does not parse, is
 * set aside and the messages after it still arrive; an agent at its most pending requests is refused the next one; a
 * request opened without deadline_ms gets the configured longest lifetime.
 */
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import type { InboxPushFrame, ServerFrame } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'lead', name: 'Lead', token: newToken(), team: 'red', role: 'lead' },
  { id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'bob', name: 'Bob', token: newToken(), team: 'red', role: 'teammate' },
];
const LIFETIME_MS = 60_000;

let gw: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

beforeAll(async () => {
  const keyPrefix = uniqueKeyPrefix('inbox-limits');
  gw = await startTestGateway({
    name: 'inbox-limits',
    keyPrefix,
    agents: AGENTS,
    env: { AHP_INBOX_MAX_MESSAGES: '2', AHP_AGENT_MAX_PENDING_REQUESTS: '1', AHP_AGENT_REQUEST_MAX_LIFETIME_MS: String(LIFETIME_MS) },
  });
  store = await openTestStore(keyPrefix, testLogger());
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

const send = (id: string, content: string) => ({ type: 'send', id, message: { to: 'lead', content, type: 'message' } }) as const;
const pushed = (client: AgentClient, content: string) => client.next((frame) => frame.type === 'inbox' && (frame as InboxPushFrame).message.content === content) as Promise<InboxPushFrame>;

describe('inbox limits', () => {
  it('refuses the sender with E_RATE_LIMITED when the inbox is full; the recipient still receives, acknowledges and gets room', async () => {
    const alice = await ready('alice');
    expect(await alice.request(send('m1', 'one'))).toMatchObject({ type: 'ack' });
    expect(await alice.request(send('m2', 'two'))).toMatchObject({ type: 'ack' });
    const refused: ServerFrame = await alice.request(send('m3', 'three'));
    expect(refused).toMatchObject({ type: 'error', id: 'm3', error: { code: 'E_RATE_LIMITED', retryable: true, details: { limit: 'inbox_messages', to: 'lead', max: 2 } } });
    expect((await store.stores.inboxes.pending('lead')).map((entry) => entry.message.content)).toEqual(['one', 'two']);

    const lead = await ready('lead');
    const first = await pushed(lead, 'one');
    await pushed(lead, 'two');
    lead.send({ type: 'inbox_ack', id: 'ack-1', message_ids: [first.message.id] });
    await lead.reply('ack-1');
    // Room again: the refused message goes through when sent again, and reaches the lead.
    expect(await alice.request(send('m3', 'three'))).toMatchObject({ type: 'ack' });
    await pushed(lead, 'three');
  });
});

describe('an inbox entry that does not parse', () => {
  it('is set aside on delivery: the messages after it reach the recipient, and it no longer takes room in the inbox', async () => {
    // Stored the way inbox-send stored it before the size checks: mapped, its bytes counted.
    const old = JSON.stringify({ id: 'msg-old', from: 'alice', to: 'bob', content: 'x'.repeat(300_000), type: 'message', metadata: {}, sent_at: new Date().toISOString() });
    const entry = await store.redis.xAdd(store.keys.inbox('bob'), '*', { id: 'msg-old', message: old });
    await store.redis.hSet(store.keys.inboxIds('bob'), { 'msg-old': entry, 'msg-old#bytes': String(old.length), '#bytes': String(old.length) });
    const alice = await ready('alice');
    const toBob = (id: string, content: string) => ({ type: 'send', id, message: { to: 'bob', content, type: 'message' } }) as const;
    expect(await alice.request(toBob('b1', 'after the old one'))).toMatchObject({ type: 'ack' });
    expect(await alice.request(toBob('b2', 'one too many'))).toMatchObject({ type: 'error', error: { code: 'E_RATE_LIMITED' } });

    const bob = await ready('bob');
    await pushed(bob, 'after the old one');
    expect(((await store.redis.xRange(store.keys.inboxUnreadable('bob'), '-', '+')) ?? []).map((aside) => aside.message['entry'])).toEqual([entry]);
    // Its slot is free again without any ack, and the next message arrives too.
    expect(await alice.request(toBob('b2', 'one too many'))).toMatchObject({ type: 'ack' });
    await pushed(bob, 'one too many');
  });
});

describe('request limits', () => {
  const open = (id: string, extra: Record<string, unknown> = {}) =>
    ({
      type: 'request',
      id: `open-${id}`,
      request: {
        request_id: id,
        type: 'plan_approval',
        target: { kind: 'agent', agent: 'lead' },
        payload: { plan: { title: 'tidy up', steps: [{ id: 's1', description: 'remove dead code', dependencies: [], status: 'pending', tools_expected: [] }] } },
        ...extra,
      },
    }) as const;

  it('gives a request without deadline_ms the longest lifetime and refuses a second pending one', async () => {
    const alice = await ready('alice');
    const before = Date.now();
    const opened = await alice.request(open('req_1'));
    expect(opened).toMatchObject({ type: 'ack', result: { kind: 'request', request: { request_id: 'req_1', status: 'pending' } } });
    const deadline = Date.parse((opened as { result: { request: { deadline: string } } }).result.request.deadline);
    expect(deadline).toBeGreaterThanOrEqual(before + LIFETIME_MS);
    expect(deadline).toBeLessThanOrEqual(Date.now() + LIFETIME_MS);

    const refused = await alice.request(open('req_2', { deadline_ms: 10_000 }));
    expect(refused).toMatchObject({ type: 'error', error: { code: 'E_RATE_LIMITED', details: { limit: 'pending_requests', max: 1 } } });
    // Re-sending the open one is answered as before.
    expect(await alice.request(open('req_1'))).toMatchObject({ type: 'ack' });
  });
});
