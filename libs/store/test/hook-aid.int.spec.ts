/**
 * OperatorSignalStore.sendHookAid against the run's Redis: the late aid of a post-* hook is
 * stored as pushed signals tied to the hook (record, log, pending set), at most once per hook,
 * and answered like any signal.
 */
import type { Signal } from '@ahp/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreInputError, createRedisStores, readSignalLog, type HookAidOrigin, type RedisClient, type RedisStores, type StoreKeys } from '../src/index.js';
import { makeSignal, openClient, randomUUID, testKeys } from './support.js';

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;

beforeAll(async () => {
  redis = await openClient('store-test:hook-aid');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys });
});

function origin(): HookAidOrigin {
  return { agentId: 'agent-1', sessionId: 'session-1', hookId: randomUUID(), trigger: 'post-tool-use' };
}

function aid(hookId: string): Signal {
  const signal = makeSignal('aid', 'result-analyzer');
  return { ...signal, header: { ...signal.header, correlation_id: hookId } };
}

describe('OperatorSignalStore.sendHookAid', () => {
  it('stores each signal as a pending push tied to the hook, with its log entry', async () => {
    const from = origin();
    const signals = [aid(from.hookId), aid(from.hookId)];
    const now = Date.now();
    const sent = await stores.operatorSignals.sendHookAid(from, signals, now + 60_000, now);
    expect(sent).toEqual({ outcome: 'sent', gatewayId: null });

    expect((await stores.operatorSignals.pending('agent-1', now)).map((s) => s.header.id)).toEqual(signals.map((s) => s.header.id));
    const record = await redis.hGetAll(keys.signal(signals[0]!.header.id));
    expect(record).toMatchObject({ agent_id: 'agent-1', session_id: 'session-1', hook_id: from.hookId, trigger: 'post-tool-use', intensity: 'aid', source: 'result-analyzer' });
    const log = await readSignalLog(redis, keys);
    expect(log.map((record) => ({ kind: record.kind, hook_id: record.entry.hook_id, hook: record.entry.hook, signal_id: record.entry.signal_id }))).toEqual(
      signals.map((s) => ({ kind: 'signal', hook_id: from.hookId, hook: 'post-tool-use', signal_id: s.header.id })),
    );
  });

  it('sends a hook its late aid once: a re-run of the job with new signal ids adds nothing', async () => {
    const from = origin();
    const now = Date.now();
    await stores.operatorSignals.sendHookAid(from, [aid(from.hookId)], now + 60_000, now);
    const again = await stores.operatorSignals.sendHookAid(from, [aid(from.hookId)], now + 60_000, now);
    expect(again).toEqual({ outcome: 'duplicate' });
    expect(await stores.operatorSignals.pending('agent-1', now)).toHaveLength(1);
  });

  it('is answered like any signal, and leaves the pending set once answered', async () => {
    const from = origin();
    const signal = aid(from.hookId);
    const now = Date.now();
    await stores.operatorSignals.sendHookAid(from, [signal], now + 60_000, now);
    const answered = await stores.signals.respond('agent-1', { signal_id: signal.header.id, consumed_at: new Date(now).toISOString(), action: 'suggestion_applied' }, now);
    expect(answered).toMatchObject({ outcome: 'recorded', record: { hook_id: from.hookId, trigger: 'post-tool-use' } });
    expect(await stores.operatorSignals.pending('agent-1', now)).toEqual([]);
  });

  it('pushes nothing for a hook of a client that cannot take pushes (opened with answers off)', async () => {
    const from = origin();
    const now = Date.now();
    await stores.hooks.open({ hookId: from.hookId, agentId: 'agent-1', sessionId: 'session-1', gatewayId: 'gw-a', trigger: 'post-tool-use', now, deadlineAt: now + 5_000, answersRequired: false });
    expect(await stores.operatorSignals.sendHookAid(from, [aid(from.hookId)], now + 60_000, now)).toEqual({ outcome: 'no_push_channel' });
    expect(await stores.operatorSignals.pending('agent-1', now)).toEqual([]);
  });

  it('refuses anything but aid, and stores nothing', async () => {
    const from = origin();
    const now = Date.now();
    await expect(stores.operatorSignals.sendHookAid(from, [aid(from.hookId), makeSignal('prompt')], now + 60_000, now)).rejects.toThrow(StoreInputError);
    expect(await stores.operatorSignals.pending('agent-1', now)).toEqual([]);
    expect(await redis.exists(keys.lateAid(from.hookId))).toBe(0);
  });
});
