// Starts: the run's private Redis (or its cluster). The notification store's records, attempts and
// dead letters, and the request audit stream followed as a consumer group by two members.
import { createRequest } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationStore, createRedisStores, createRequestEventConsumer, readRequestTeams, type RedisClient, type RequestEventRecord } from '../src/index.js';
import { eventually, openClient, randomUUID, recordingLogger, testKeys } from './support.js';

const T0 = Date.parse('2026-11-26T05:00:00.000Z');
const at = (ms: number) => new Date(ms).toISOString();

describe('notification store', () => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = await openClient('notification-store');
  });
  afterAll(async () => {
    await redis?.close();
  });

  const meta = (id: string, ms: number) => ({ delivery_id: id, channel: 'on-call', channel_type: 'webhook' as const, request_id: `req_${ms}`, request_type: 'tool_approval' as const, created_at: at(ms) });

  it('records a delivery once, its attempts in order, and its end', async () => {
    const store = createNotificationStore({ redis, keys: testKeys('notify-records') });
    const id = randomUUID();
    await store.open(meta(id, T0));
    await store.recordAttempt(id, { attempt: 1, at: at(T0), ok: false, status_code: 500, error: 'the receiver answered 500' });
    // Opening again (the event was routed twice) keeps the record and its attempts.
    await store.open({ ...meta(id, T0 + 5), channel: 'other' });
    await store.recordAttempt(id, { attempt: 2, at: at(T0 + 1), ok: true, status_code: 200 });
    await store.delivered(id);
    expect(await store.recent(10)).toEqual([
      {
        ...meta(id, T0),
        status: 'delivered',
        attempts: [
          { attempt: 1, at: at(T0), ok: false, status_code: 500, error: 'the receiver answered 500' },
          { attempt: 2, at: at(T0 + 1), ok: true, status_code: 200 },
        ],
      },
    ]);
  });

  it('keeps the newest deliveries and dead letters up to their caps, newest first', async () => {
    const store = createNotificationStore({ redis, keys: testKeys('notify-caps'), maxDeliveries: 2, maxDeadLetters: 2 });
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const [index, id] of ids.entries()) {
      await store.open(meta(id, T0 + index));
      await store.deadLetter({ delivery_id: id, channel: 'on-call', request_id: `req_${index}`, attempts: 3, error: 'the receiver answered 500', at: at(T0 + index) });
    }
    expect((await store.recent(10)).map((d) => [d.delivery_id, d.status])).toEqual([
      [ids[2], 'dead'],
      [ids[1], 'dead'],
    ]);
    expect((await store.deadLetters(10)).map((d) => d.delivery_id)).toEqual([ids[2], ids[1]]);
  });

  it('refuses records that do not fit the protocol', async () => {
    const store = createNotificationStore({ redis, keys: testKeys('notify-bad') });
    await expect(store.open({ ...meta(randomUUID(), T0), channel: 'Not A Name' })).rejects.toThrow(/invalid notification delivery/);
    await expect(store.recordAttempt(randomUUID(), { attempt: 0, at: at(T0), ok: true })).rejects.toThrow(/invalid notification attempt/);
  });
});

describe('request event consumer group', () => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = await openClient('request-event-consumer');
  });
  afterAll(async () => {
    await redis?.close();
  });

  function toolApproval(requestId: string, sender: string) {
    return createRequest({
      requestId,
      sender,
      target: { kind: 'operators' },
      now: at(Date.now()),
      deadline: at(Date.now() + 60_000),
      type: 'tool_approval',
      payload: { tool: 'deploy', input: { env: 'production' }, input_digest: 'a'.repeat(64) },
    });
  }

  it('hands each new request to one member; an entry a member failed on is taken by another', async () => {
    const keys = testKeys('notify-group');
    const stores = createRedisStores({ redis, keys, teamOf: (agent) => (agent === 'builder' ? 'payments' : undefined) });
    const seen: { member: string; event: RequestEventRecord }[] = [];
    let failOnce = true;
    const member = (name: string) =>
      createRequestEventConsumer({
        redis,
        keys,
        group: 'notifications',
        consumer: name,
        logger: recordingLogger(),
        blockMs: 100,
        claimIdleMs: 300,
        onEvent: async (event) => {
          if (event.requestId === 'req_fails_once' && failOnce) {
            failOnce = false;
            throw new Error('receiver of the queue is down');
          }
          seen.push({ member: name, event });
        },
      });
    const a = member('worker-a');
    const b = member('worker-b');
    await a.start();
    await b.start();
    try {
      const ids = ['req_n1', 'req_n2', 'req_fails_once', 'req_n3'];
      for (const id of ids) await stores.requests.create(toolApproval(id, 'builder'), Date.now());
      await eventually(() => (ids.every((id) => seen.some((s) => s.event.requestId === id)) ? true : undefined), 'every request handled');
      // Exactly once each (a failed attempt is not a handling), with the state and the sender's team at hand.
      expect(seen.map((s) => s.event.requestId).sort()).toEqual([...ids].sort());
      expect(seen.every((s) => s.event.event === 'created' && s.event.state?.target.kind === 'operators')).toBe(true);
      expect(await readRequestTeams(redis, keys, 'req_n1')).toEqual(['payments']);
      expect(await readRequestTeams(redis, keys, 'req_missing')).toBeNull();
      // Nothing stays pending in the group.
      const pending = await eventually(async () => {
        const summary = (await redis.xPending(keys.requestEvents, 'notifications')) as { pending: number };
        return summary.pending === 0 ? summary : undefined;
      }, 'no pending entries');
      expect(pending.pending).toBe(0);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
