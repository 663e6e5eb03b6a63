/**
 * InboxStore against the run's Redis: durable per-agent inboxes, at-least-once until acknowledged,
 * and the notice to the gateway that holds the recipient.
 */
import { LIMITS, type InboxMessage, type PresenceEntry } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  InboxFullError,
  StoreInputError,
  createDecisionFeed,
  createGatewayFeed,
  createRedisStores,
  type InboxNotice,
  type RedisClient,
  type RedisStores,
  type StoreKeys,
} from '../src/index.js';
import { eventually, makeDecision, openClient, randomUUID, recordingLogger, testKeys } from './support.js';

const T0 = Date.parse('2025-06-01T12:00:00.000Z');

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;
const feeds: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  redis = await openClient('store-test:inbox');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys });
});
afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.stop()));
});

function message(to: string, content: string, overrides: Partial<InboxMessage> = {}): InboxMessage {
  return { id: randomUUID(), from: 'lead', to, content, type: 'message', metadata: {}, sent_at: new Date(T0).toISOString(), ...overrides };
}

async function connect(agentId: string, gatewayId: string): Promise<void> {
  const at = new Date(T0).toISOString();
  const entry: PresenceEntry = { agent: { id: agentId, name: agentId }, session_id: `s-${agentId}`, gateway_id: gatewayId, connected_at: at, last_activity_at: at };
  await stores.presence.connect(entry, 60_000, Date.now());
}

/** Feed entries of one gateway's stream, as written. */
async function feedEntries(gatewayId: string): Promise<Record<string, string>[]> {
  return ((await redis.xRange(keys.gatewayDecisions(gatewayId), '-', '+')) ?? []).map((entry) => ({ ...(entry.message as Record<string, string>) }));
}

describe('InboxStore limits', () => {
  it('refuses a message beyond the most messages with InboxFullError, changing nothing; acknowledging makes room', async () => {
    const small = createRedisStores({ redis, keys, inboxMaxMessages: 3 }).inboxes;
    const sent = [message('bob', 'one'), message('bob', 'two'), message('bob', 'three')];
    for (const m of sent) await small.send(m, T0);
    const refused = await small.send(message('bob', 'four'), T0).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InboxFullError);
    expect(refused).toMatchObject({ code: 'E_INBOX_FULL', agentId: 'bob', limit: 'messages', max: 3 });
    // A retry of a message the inbox holds is answered as before; another inbox is not affected.
    expect((await small.send(sent[2]!, T0)).message).toEqual(sent[2]);
    await small.send(message('carol', 'hi'), T0);
    expect((await small.pending('bob')).map((entry) => entry.message.content)).toEqual(['one', 'two', 'three']);
    await small.ack('bob', [sent[0]!.id]);
    await small.send(message('bob', 'four'), T0);
    expect((await small.pending('bob')).map((entry) => entry.message.content)).toEqual(['two', 'three', 'four']);
  });

  it('refuses a message that would pass the most bytes; the count follows acks', async () => {
    const content = 'x'.repeat(10_000);
    const size = JSON.stringify(message('bob', content, { id: randomUUID() })).length;
    const small = createRedisStores({ redis, keys, inboxMaxBytes: 3 * size }).inboxes;
    const sent = [message('bob', content), message('bob', content), message('bob', content)];
    for (const m of sent) await small.send(m, T0);
    expect(Number(await redis.hGet(keys.inboxIds('bob'), '#bytes'))).toBe(3 * size);
    await expect(small.send(message('bob', 'x'), T0)).rejects.toMatchObject({ code: 'E_INBOX_FULL', limit: 'bytes', max: 3 * size });
    await small.ack('bob', [sent[0]!.id, sent[1]!.id]);
    expect(Number(await redis.hGet(keys.inboxIds('bob'), '#bytes'))).toBe(size);
    await small.send(message('bob', content), T0);
    await small.send(message('bob', 'x'.repeat(9_000)), T0);
    await expect(small.send(message('bob', 'x'.repeat(1_000)), T0)).rejects.toBeInstanceOf(InboxFullError);
  });

  it('a flood of large messages stops at the byte limit, and the inbox of the recipient keeps working (the audit repro, scaled down)', async () => {
    const maxBytes = 1024 * 1024;
    const flooded = createRedisStores({ redis, keys, inboxMaxBytes: maxBytes }).inboxes;
    const content = 'x'.repeat(64 * 1024);
    let stored = 0;
    let refused = 0;
    for (let i = 0; i < 24; i++) {
      try {
        await flooded.send(message('victim', content, { from: 'mallory' }), T0);
        stored++;
      } catch (error) {
        expect(error).toBeInstanceOf(InboxFullError);
        refused++;
      }
    }
    expect(stored).toBe(Math.floor(maxBytes / JSON.stringify(message('victim', content, { from: 'mallory' })).length));
    expect(refused).toBe(24 - stored);
    expect(Number(await redis.hGet(keys.inboxIds('victim'), '#bytes'))).toBeLessThanOrEqual(maxBytes);
    // The victim's inbox still works: it reads, acknowledges, and receives again.
    const first = (await flooded.pending('victim', undefined, 1))[0]!;
    expect(await flooded.ack('victim', [first.message.id])).toBe(1);
    await flooded.send(message('victim', 'hello from a teammate'), T0);
    expect((await flooded.pending('victim', undefined, 1000)).at(-1)?.message.content).toBe('hello from a teammate');
  });

  it('keeps a digest and the head in the dedup record, not a second copy of the message', async () => {
    const m = message('bob', 'y'.repeat(100_000), { metadata: { topic: 'big' } });
    const first = await stores.inboxes.send(m, T0);
    const record = await redis.hGetAll(keys.inboxSent('bob', m.id));
    expect(Object.keys(record).sort()).toEqual(['digest', 'entry', 'head']);
    expect(JSON.stringify(record).length).toBeLessThan(1000);
    await stores.inboxes.ack('bob', [m.id]);
    // Sent again after the ack, saying the same (a later time): the first message whole.
    expect(await stores.inboxes.send({ ...m, sent_at: new Date(T0 + 1).toISOString() }, T0 + 1)).toEqual(first);
    // Saying something else: its head, with what it said gone with the ack.
    const other = await stores.inboxes.send({ ...m, content: 'different' }, T0 + 2);
    expect(other).toEqual({ cursor: first.cursor, message: { ...m, content: '', metadata: {} } });
  });
});

describe('InboxStore', () => {
  it('keeps messages in order until acknowledged; reading does not consume them; ack is idempotent', async () => {
    const sent = [message('bob', 'one'), message('bob', 'two'), message('bob', 'three')];
    const entries = [];
    for (const m of sent) entries.push(await stores.inboxes.send(m, T0));
    expect(entries.map((entry) => entry.message)).toEqual(sent);

    const pending = await stores.inboxes.pending('bob');
    expect(pending).toEqual(entries);
    expect(await stores.inboxes.pending('bob')).toEqual(entries);
    expect(await stores.inboxes.pending('bob', entries[0]!.cursor)).toEqual(entries.slice(1));
    expect(await stores.inboxes.pending('bob', undefined, 2)).toEqual(entries.slice(0, 2));

    expect(await stores.inboxes.ack('bob', [sent[0]!.id, 'never-sent'])).toBe(1);
    expect(await stores.inboxes.ack('bob', [sent[0]!.id])).toBe(0);
    expect(await stores.inboxes.ack('bob', [])).toBe(0);
    // Another agent cannot remove bob's messages by id.
    expect(await stores.inboxes.ack('carol', [sent[1]!.id])).toBe(0);
    expect((await stores.inboxes.pending('bob')).map((entry) => entry.message.content)).toEqual(['two', 'three']);
  });

  it('appends a re-sent message id once while it is unacknowledged', async () => {
    const m = message('bob', 'hello');
    const first = await stores.inboxes.send(m, T0);
    expect(await stores.inboxes.send({ ...m, content: 'changed' }, T0)).toEqual(first);
    expect(await stores.inboxes.pending('bob')).toEqual([first]);
  });

  it('answers a message id sent again after it was acknowledged with the first copy, within the dedup window (KI-1)', async () => {
    const m = message('bob', 'hello once');
    const first = await stores.inboxes.send(m, T0);
    expect(await stores.inboxes.ack('bob', [m.id])).toBe(1);
    expect(await stores.inboxes.send({ ...m, sent_at: new Date(T0 + 5000).toISOString() }, T0 + 5000)).toEqual(first);
    expect(await stores.inboxes.pending('bob')).toEqual([]);
    // The record of the send expires with the window, acknowledged or not.
    const ttl = await redis.pTTL(keys.inboxSent('bob', m.id));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(24 * 3_600_000);

    const short = createRedisStores({ redis, keys }).inboxes;
    const other = message('bob', 'another');
    await short.send(other, T0);
    await redis.del(keys.inboxSent('bob', other.id));
    // Without the record (window over) and still unacknowledged, the inbox itself still dedups.
    expect((await short.send(other, T0)).message).toEqual(other);
    expect((await stores.inboxes.pending('bob')).map((entry) => entry.message.id)).toEqual([other.id]);
  });

  it('keeps a message sent while the recipient is offline, and notifies its gateway once it is connected', async () => {
    const offline = await stores.inboxes.send(message('bob', 'while you were away'), T0);
    expect(await redis.exists(keys.gatewayDecisions('gw-a'))).toBe(0);

    await connect('bob', 'gw-a');
    expect(await stores.inboxes.pending('bob')).toEqual([offline]);
    await stores.inboxes.send(message('bob', 'welcome back'), T0);
    await stores.inboxes.send(message('carol', 'not yours'), T0);
    expect(await feedEntries('gw-a')).toEqual([{ kind: 'inbox', agent_id: 'bob' }]);
  });

  it('refuses invalid input', async () => {
    await expect(stores.inboxes.send({ ...message('bob', 'x'), type: 'shutdown_request' }, T0)).rejects.toBeInstanceOf(StoreInputError);
    await expect(stores.inboxes.pending('bob', 'not-a-cursor')).rejects.toBeInstanceOf(StoreInputError);
    await expect(stores.inboxes.pending('bob', undefined, 0)).rejects.toBeInstanceOf(StoreInputError);
  });

  it('sets aside an entry that does not parse or is not addressed to the inbox, and delivers the rest', async () => {
    const logger = recordingLogger();
    const inboxes = createRedisStores({ redis, keys, logger }).inboxes;
    const m1 = message('bob', 'first');
    await inboxes.send(m1, T0);
    // An entry from before the size checks: stored by inbox-send's rules (mapped, its bytes
    // counted), but too long for InboxMessageSchema now.
    const oversized = message('bob', 'secret-text '.repeat(LIMITS.maxLongText / 6));
    const oversizedJson = JSON.stringify(oversized);
    const oversizedEntry = await redis.xAdd(keys.inbox('bob'), '*', { id: oversized.id, message: oversizedJson });
    await redis.hSet(keys.inboxIds('bob'), { [oversized.id]: oversizedEntry, [`${oversized.id}#bytes`]: String(oversizedJson.length) });
    await redis.hIncrBy(keys.inboxIds('bob'), '#bytes', oversizedJson.length);
    const m2 = message('bob', 'second');
    await inboxes.send(m2, T0);
    const brokenEntry = await redis.xAdd(keys.inbox('bob'), '*', { id: 'm-broken', message: '{broken secret-text' });
    const forCarol = message('carol', 'misfiled');
    const misfiledEntry = await redis.xAdd(keys.inbox('bob'), '*', { id: forCarol.id, message: JSON.stringify(forCarol) });
    const m3 = message('bob', 'third');
    await inboxes.send(m3, T0);

    expect((await inboxes.pending('bob')).map((entry) => entry.message.content)).toEqual(['first', 'second', 'third']);
    // Reported with key and entry id, never with what the entry held.
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors.map((line) => line.fields['entry'])).toEqual([oversizedEntry, brokenEntry, misfiledEntry]);
    expect(errors.every((line) => line.fields['key'] === keys.inbox('bob') && line.fields['during'] === 'inbox delivery' && line.fields['outcome'] === 'set aside')).toBe(true);
    expect(JSON.stringify(logger.lines)).not.toContain('secret-text');
    // Moved aside, not lost: the unreadable stream keeps them, the inbox no longer counts them.
    const aside = (await redis.xRange(keys.inboxUnreadable('bob'), '-', '+')) ?? [];
    expect(aside.map((entry) => [entry.message['entry'], entry.message['stored:id']])).toEqual([
      [oversizedEntry, oversized.id],
      [brokenEntry, 'm-broken'],
      [misfiledEntry, forCarol.id],
    ]);
    expect(aside[0]?.message['stored:message']).toBe(oversizedJson);
    expect(await redis.pTTL(keys.inboxUnreadable('bob'))).toBeGreaterThan(0);
    expect(await redis.xLen(keys.inbox('bob'))).toBe(3);
    expect(await redis.hGet(keys.inboxIds('bob'), oversized.id)).toBeNull();
    const goodBytes = [m1, m2, m3].reduce((sum, m) => sum + JSON.stringify(m).length, 0);
    expect(Number(await redis.hGet(keys.inboxIds('bob'), '#bytes'))).toBe(goodBytes);
    // The next connection reads the same three, and nothing is reported twice.
    expect((await inboxes.pending('bob')).map((entry) => entry.message.id)).toEqual([m1.id, m2.id, m3.id]);
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(3);
    expect(await inboxes.ack('bob', [m1.id, m2.id, m3.id])).toBe(3);
    expect(await redis.hGet(keys.inboxIds('bob'), '#bytes')).toBe('0');
  });

  it('fills a page past entries it sets aside, so a short page still means the end of the inbox', async () => {
    const inboxes = createRedisStores({ redis, keys, logger: recordingLogger() }).inboxes;
    for (let i = 0; i < 3; i++) await redis.xAdd(keys.inbox('bob'), '*', { id: `bad-${i}`, message: '{broken' });
    const sent = [message('bob', 'a'), message('bob', 'b'), message('bob', 'c')];
    for (const m of sent) await inboxes.send(m, T0);
    const page = await inboxes.pending('bob', undefined, 2);
    expect(page.map((entry) => entry.message.content)).toEqual(['a', 'b']);
    expect((await inboxes.pending('bob', page[1]?.cursor, 2)).map((entry) => entry.message.content)).toEqual(['c']);
    expect(await redis.xLen(keys.inboxUnreadable('bob'))).toBe(3);
  });
});

describe('gateway feed', () => {
  function start(gatewayId: string) {
    const logger = recordingLogger();
    const notices: InboxNotice[] = [];
    const decisions: string[] = [];
    const feed = createGatewayFeed({ redis, keys, gatewayId, logger });
    feeds.push(feed);
    const started = feed.start({ onInbox: (notice) => notices.push(notice), onDecision: (decision) => decisions.push(decision.hook_id) });
    return { logger, notices, decisions, started };
  }

  it('delivers inbox notices for the agents in its presence, and decisions, in one feed', async () => {
    await connect('bob', 'gw-a');
    await connect('carol', 'gw-b');
    const { notices, decisions, logger, started } = start('gw-a');
    await started;

    await stores.inboxes.send(message('bob', 'hi'), T0);
    await stores.inboxes.send(message('carol', 'hi'), T0);
    const hookId = randomUUID();
    await stores.hooks.open({ hookId, agentId: 'bob', sessionId: 's-bob', gatewayId: 'gw-a', trigger: 'pre-tool-use', now: Date.now(), deadlineAt: Date.now() + 5_000 });
    await stores.hooks.decide(hookId, makeDecision(hookId), Date.now());

    await eventually(() => (notices.length >= 1 && decisions.length >= 1 ? true : undefined), 'the notice and the decision');
    expect(notices).toEqual([{ agent_id: 'bob' }]);
    expect(decisions).toEqual([hookId]);
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it("notifies the target's gateway of a new request and the sender's of its outcome", async () => {
    await connect('alice', 'gw-a');
    await connect('lead', 'gw-b');
    const a = start('gw-a');
    const b = start('gw-b');
    await Promise.all([a.started, b.started]);

    const now = new Date(T0).toISOString();
    await stores.requests.create(
      { request_id: 'req_1', type: 'shutdown', sender: 'lead', target: { kind: 'agent', agent: 'alice' }, status: 'pending', payload: {}, created_at: now, updated_at: now },
      T0,
    );
    await eventually(() => (a.notices.length >= 1 ? true : undefined), 'the notice for alice');
    await stores.requests.decide('req_1', { request_id: 'req_1', type: 'shutdown_response', approve: true }, { kind: 'agent', id: 'alice' }, T0 + 1);
    await eventually(() => (b.notices.length >= 1 ? true : undefined), 'the notice for lead');

    expect(a.notices).toEqual([{ agent_id: 'alice' }]);
    expect(b.notices).toEqual([{ agent_id: 'lead' }]);
    expect((await stores.inboxes.pending('lead')).map((entry) => entry.message.type)).toEqual(['shutdown_response']);
  });

  it('skips and logs entries that do not parse; a decision feed skips inbox notices quietly', async () => {
    const { notices, logger, started } = start('gw-a');
    const decisionLogger = recordingLogger();
    const decisionFeed = createDecisionFeed({ redis, keys, gatewayId: 'gw-a', logger: decisionLogger });
    feeds.push(decisionFeed);
    const decisions: string[] = [];
    await Promise.all([started, decisionFeed.start((decision) => decisions.push(decision.hook_id))]);

    const stream = keys.gatewayDecisions('gw-a');
    await redis.xAdd(stream, '*', { kind: 'inbox', agent_id: 'not an id' });
    await redis.xAdd(stream, '*', { kind: 'telegram', agent_id: 'bob' });
    await redis.xAdd(stream, '*', { kind: 'inbox', agent_id: 'bob' });
    const hookId = randomUUID();
    await redis.xAdd(stream, '*', { hook_id: hookId, decision: JSON.stringify(makeDecision(hookId)) });

    await eventually(() => (notices.length >= 1 && decisions.length >= 1 ? true : undefined), 'the valid entries');
    expect(notices).toEqual([{ agent_id: 'bob' }]);
    expect(decisions).toEqual([hookId]);
    const skipped = logger.lines.filter((line) => line.level === 'error' && line.message.includes('does not parse'));
    expect(skipped).toHaveLength(2);
    // The decisions-only feed logs only the entry whose kind nobody knows.
    expect(decisionLogger.lines.filter((line) => line.level === 'error')).toHaveLength(1);
  });
});
