/**
 * SignalStore.respond against the run's Redis: every outcome, and the response entry in the log.
 */
import type { Intensity, Signal, SignalResponse } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreDataError, StoreInputError, createRedisStores, readSignalLog, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { makeDecision, makeSignal, openClient, randomUUID, testKeys } from './support.js';

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  redis = await openClient('store-test:signals');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys });
});

/** Sends one signal of `intensity` to agent-1 through a decided hook. */
async function sentSignal(intensity: Intensity): Promise<Signal> {
  const hookId = randomUUID();
  const now = Date.now();
  await stores.hooks.open({ hookId, agentId: 'agent-1', sessionId: 'session-1', gatewayId: 'gw-a', trigger: 'pre-issue-submit', now, deadlineAt: now + 5_000 });
  const signal = makeSignal(intensity);
  await stores.hooks.decide(hookId, makeDecision(hookId, [signal], 'pre-issue-submit'), now);
  return signal;
}

function response(signal: Signal, action: SignalResponse['action'], details?: SignalResponse['details']): SignalResponse {
  return { signal_id: signal.header.id, consumed_at: '2025-01-01T00:00:00.000Z', action, ...(details === undefined ? {} : { details }) };
}

describe('SignalStore.respond', () => {
  it('records the first valid response, logs it, and returns the record', async () => {
    const signal = await sentSignal('block');
    const answer = response(signal, 'retry_after_fix', { attempt: 1, note: 'moved the file' });
    const now = Date.now();

    const outcome = await stores.signals.respond('agent-1', answer, now);
    expect(outcome).toEqual({ outcome: 'recorded', record: expect.objectContaining({ signal_id: signal.header.id, response: answer }) });
    expect((await stores.signals.get(signal.header.id))?.response).toEqual(answer);

    const log = await readSignalLog(redis, keys);
    expect(log.map((line) => line.kind)).toEqual(['signal', 'response']);
    expect(log[1]!.entry).toMatchObject({
      timestamp: new Date(now).toISOString(),
      consumed: true,
      action: 'retry_after_fix',
      intensity: 'block',
      signal_id: signal.header.id,
      hook: 'pre-issue-submit',
    });
    expect(log[1]!.agentId).toBe('agent-1');
  });

  it('answers the same response again with duplicate, whatever the key order, and a different one with conflict', async () => {
    const signal = await sentSignal('prompt');
    const answer = response(signal, 'acknowledge', { a: 1, b: { c: true, d: 'x' } });
    await stores.signals.respond('agent-1', answer, Date.now());

    const reordered: SignalResponse = { details: { b: { d: 'x', c: true }, a: 1 }, action: 'acknowledge', consumed_at: answer.consumed_at, signal_id: answer.signal_id };
    await expect(stores.signals.respond('agent-1', reordered, Date.now())).resolves.toMatchObject({ outcome: 'duplicate', record: { response: answer } });
    await expect(stores.signals.respond('agent-1', response(signal, 'apply_suggestion'), Date.now())).resolves.toMatchObject({
      outcome: 'conflict',
      record: { response: answer },
    });
    expect((await readSignalLog(redis, keys)).filter((line) => line.kind === 'response')).toHaveLength(1);
  });

  it('counts a repeat with another consumed_at as the same answer (same action and details), and other details as a conflict', async () => {
    const signal = await sentSignal('prompt');
    const answer = response(signal, 'acknowledge', { note: 'seen' });
    await stores.signals.respond('agent-1', answer, Date.now());

    // A client re-sending after a reconnect stamps the time again: the answer is still the same.
    const later = { ...answer, consumed_at: new Date(Date.parse(answer.consumed_at) + 5000).toISOString() };
    await expect(stores.signals.respond('agent-1', later, Date.now())).resolves.toMatchObject({ outcome: 'duplicate', record: { response: answer } });
    await expect(stores.signals.respond('agent-1', { ...later, details: { note: 'other' } }, Date.now())).resolves.toMatchObject({
      outcome: 'conflict',
      record: { response: answer },
    });
    await expect(stores.signals.respond('agent-1', { signal_id: answer.signal_id, consumed_at: later.consumed_at, action: 'acknowledge' }, Date.now())).resolves.toMatchObject({
      outcome: 'conflict',
    });
    expect((await readSignalLog(redis, keys)).filter((line) => line.kind === 'response' && line.entry.signal_id === signal.header.id)).toHaveLength(1);
  });

  it('reports not_found for an unknown signal and forbidden for another agent', async () => {
    await expect(stores.signals.respond('agent-1', response(makeSignal('aid'), 'suggestion_applied'), Date.now())).resolves.toEqual({
      outcome: 'not_found',
    });
    const signal = await sentSignal('aid');
    await expect(stores.signals.respond('agent-2', response(signal, 'suggestion_applied'), Date.now())).resolves.toEqual({ outcome: 'forbidden' });
    expect((await stores.signals.get(signal.header.id))?.response).toBeUndefined();
  });

  it('refuses an action of another intensity, e.g. dismissing a block, with the allowed actions', async () => {
    const signal = await sentSignal('block');
    await expect(stores.signals.respond('agent-1', response(signal, 'dismiss'), Date.now())).resolves.toEqual({
      outcome: 'invalid_action',
      allowed: ['retry_after_fix', 'proceed_with_risk', 'abort'],
    });
    // Checked before duplicate/conflict, and nothing was recorded.
    await expect(stores.signals.respond('agent-1', response(signal, 'abort'), Date.now())).resolves.toMatchObject({ outcome: 'recorded' });
  });

  it('rejects a response that does not parse, and reports a corrupt record as StoreDataError', async () => {
    const bad = { signal_id: 'nope', consumed_at: 'now', action: 'dismiss' } as unknown as SignalResponse;
    await expect(stores.signals.respond('agent-1', bad, Date.now())).rejects.toBeInstanceOf(StoreInputError);

    const signal = await sentSignal('control');
    await redis.hSet(keys.signal(signal.header.id), 'response', '{"broken":');
    await expect(stores.signals.get(signal.header.id)).rejects.toMatchObject({ code: 'E_STORE_DATA', key: keys.signal(signal.header.id), field: 'response' });
    await redis.hDel(keys.signal(signal.header.id), 'intensity');
    await expect(stores.signals.respond('agent-1', response(signal, 'accept_modification'), Date.now())).rejects.toBeInstanceOf(StoreDataError);
  });
});
