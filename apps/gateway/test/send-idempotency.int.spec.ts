/**
 * `send` is idempotent by frame id (KI-1 in docs/reliability.md): two real gateways on one Redis,
 * raw `ws` clients. A frame sent again — on a new connection, to the other gateway, before or
 * after the recipient acknowledged the message — is answered with the message as first stored,
 * and the recipient's inbox holds it once; the same frame id reused for another message to the
 * same recipient is a conflict; another sender's identical frame id is a message of its own.
 */
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import type { AckFrame, InboxMessage, ServerFrame } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'lead', name: 'Lead', token: newToken(), team: 'red', role: 'lead' },
  { id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'bob', name: 'Bob', token: newToken(), team: 'red', role: 'teammate' },
];

let first: TestGateway;
let second: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

beforeAll(async () => {
  const keyPrefix = uniqueKeyPrefix('send-idempotency');
  first = await startTestGateway({ name: 'send-1', keyPrefix, agents: AGENTS });
  second = await startTestGateway({ name: 'send-2', keyPrefix, agents: AGENTS });
  store = await openTestStore(keyPrefix, testLogger());
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await first?.stop();
  await second?.stop();
  await store?.close();
});

async function ready(gw: TestGateway, agentId: string): Promise<AgentClient> {
  const { client } = await connectReady(gw.wsUrl, gw.agents[agentId]!.token);
  clients.push(client);
  return client;
}

function stored(reply: ServerFrame): InboxMessage {
  if (reply.type !== 'ack' || (reply as AckFrame).result?.kind !== 'message') throw new Error(`expected the stored message, got ${JSON.stringify(reply)}`);
  return ((reply as AckFrame).result as { kind: 'message'; message: InboxMessage }).message;
}

const send = (id: string, content: string, to = 'lead') => ({ type: 'send', id, message: { to, content, type: 'message', metadata: { step: 's1' } } }) as const;

describe('send idempotency', () => {
  it('answers a re-sent frame with the stored message, on another connection and gateway, before and after the ack', async () => {
    const sender = await ready(first, 'alice');
    const original = stored(await sender.request(send('send-1', 'hello once')));

    await sender.close();
    const resent = await ready(second, 'alice');
    expect(stored(await resent.request(send('send-1', 'hello once')))).toEqual(original);
    expect((await store.stores.inboxes.pending('lead')).map((entry) => entry.message)).toEqual([original]);

    await store.stores.inboxes.ack('lead', [original.id]);
    expect(stored(await resent.request(send('send-1', 'hello once')))).toEqual(original);
    expect(await store.stores.inboxes.pending('lead')).toEqual([]);
  });

  it('refuses the same frame id for a different message with E_CONFLICT, and keeps other senders apart', async () => {
    const alice = await ready(first, 'alice');
    const bob = await ready(second, 'bob');
    const original = stored(await alice.request(send('send-2', 'first words')));

    const conflict = await alice.request(send('send-2', 'other words'));
    expect(conflict).toMatchObject({ type: 'error', id: 'send-2', error: { code: 'E_CONFLICT', retryable: false, details: { message_id: original.id } } });
    // Another recipient is another message (the frame id is a key per sender and recipient).
    const elsewhere = stored(await alice.request(send('send-2', 'first words', 'bob')));
    expect(elsewhere.id).not.toBe(original.id);

    // Bob's frame id is his own: the same id from another sender is another message.
    const bobs = stored(await bob.request(send('send-2', 'first words')));
    expect(bobs.id).not.toBe(original.id);
    expect(bobs.from).toBe('bob');
    const pending = (await store.stores.inboxes.pending('lead')).map((entry) => entry.message.id);
    expect(pending).toEqual([original.id, bobs.id]);
  });
});
