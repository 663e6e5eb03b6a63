/**
 * Store calls across a Redis outage, against a private Redis this file starts itself
 * (tools/embedded-redis `provideRedis`), stops and starts again under a steady stream of calls.
 *
 * The client carries no per-command timer while connected (redis-client.ts,
 * `boundOfflineCommands`); these tests check that the bound on an outage is still there: calls
 * made while Redis is down fail with an error `isStoreUnavailable` recognises while Redis is still
 * down (they do not wait for it to come back), and calls after it is back succeed.
 */
import { provideRedis, type RedisHandle } from '@ahp/embedded-redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectRedis, createRedisStores, isStoreUnavailable, type RedisSingleClient } from '../src/index.js';
import { eventually, recordingLogger, testKeys } from './support.js';

/** One store call of the stream and how it ended. */
interface CallRecord {
  /** `stopping` and `restarting`: issued while Redis was going down or coming back; either outcome is right then. */
  phase: 'before' | 'stopping' | 'outage' | 'restarting' | 'after';
  outcome?: 'ok' | 'unavailable' | 'other';
  error?: unknown;
}

describe('store calls across a Redis outage', () => {
  let server: RedisHandle;
  let client: RedisSingleClient;

  beforeAll(async () => {
    server = await provideRedis({ mode: 'ephemeral' });
    client = await connectRedis({ url: server.url, name: 'store-test:outage', logger: recordingLogger(), maxReconnectDelayMs: 200 });
  });
  afterAll(async () => {
    if (client?.isOpen) client.destroy();
    await server?.stop();
  });

  it('fails calls during the outage as unavailable while Redis is still down, and serves calls after it is back', async () => {
    const stores = createRedisStores({ redis: client, keys: testKeys('outage') });
    const calls: CallRecord[] = [];
    let phase: CallRecord['phase'] = 'before';
    const issue = (): void => {
      // No call starts while Redis is being stopped: one in flight at that moment may fail either way.
      if (phase === 'stopping') return;
      const record: CallRecord = { phase };
      calls.push(record);
      stores.hooks.get('hook-that-does-not-exist').then(
        () => {
          record.outcome = 'ok';
        },
        (error: unknown) => {
          record.outcome = isStoreUnavailable(error) ? 'unavailable' : 'other';
          record.error = error;
        },
      );
    };
    const stream = setInterval(issue, 20);
    try {
      const settled = (which: CallRecord['phase']) => calls.filter((call) => call.phase === which && call.outcome !== undefined);
      await eventually(() => (settled('before').length >= 5 ? true : undefined), 'calls before the outage');

      phase = 'stopping';
      await eventually(() => (calls.every((call) => call.outcome !== undefined) ? true : undefined), 'the calls before the outage to settle');
      await server.stop({ keepData: true });
      phase = 'outage';
      // The bound: calls made while Redis is down settle while it is still down.
      await eventually(() => (settled('outage').length >= 10 ? true : undefined), 'calls during the outage to fail', 20_000);
      expect(server.pid).toBeUndefined();

      phase = 'restarting';
      await server.restart();
      await eventually(() => (client.isReady ? true : undefined), 'the client to reconnect', 20_000);
      phase = 'after';
      await eventually(() => (settled('after').length >= 5 ? true : undefined), 'calls after the outage');
    } finally {
      clearInterval(stream);
    }
    await eventually(() => (calls.every((call) => call.outcome !== undefined) ? true : undefined), 'every call to settle', 20_000);

    const outcomes = (which: CallRecord['phase']) => new Set(calls.filter((call) => call.phase === which).map((call) => call.outcome));
    expect(outcomes('before')).toEqual(new Set(['ok']));
    // Every call that failed at all failed as unavailable, never as a bug or bad data.
    expect(calls.filter((call) => call.outcome === 'other').map((call) => call.error)).toEqual([]);
    // Issued while Redis was down: failed as unavailable, or waited in the offline queue and
    // succeeded once Redis was back.
    expect(calls.filter((call) => call.phase === 'outage' && call.outcome === 'unavailable').length).toBeGreaterThanOrEqual(10);
    expect(outcomes('after')).toEqual(new Set(['ok']));
  });

  it('arms no per-command timer while connected, and one per command queued while disconnected, also on a duplicate', async () => {
    // BullMQ duplicates the client it is given for its blocking connections.
    const copy = client.duplicate();
    copy.on('error', () => undefined);
    await copy.connect();
    const armed = vi.spyOn(AbortSignal, 'timeout');
    try {
      await Promise.all(Array.from({ length: 20 }, () => client.ping()));
      await copy.ping();
      expect(armed).not.toHaveBeenCalled();

      await server.stop({ keepData: true });
      await eventually(() => (client.isReady ? undefined : true), 'the client to notice the outage');
      const queued = client.ping().then(
        () => 'ok',
        (error: unknown) => (isStoreUnavailable(error) ? 'unavailable' : error),
      );
      expect(armed).toHaveBeenCalledTimes(1);
      await eventually(() => (copy.isReady ? undefined : true), 'the duplicate to notice the outage');
      const queuedOnCopy = copy.ping().then(
        () => 'ok',
        (error: unknown) => (isStoreUnavailable(error) ? 'unavailable' : error),
      );
      expect(armed).toHaveBeenCalledTimes(2);
      await server.restart();
      // Either it timed out before the reconnect or it went out after it; never anything else.
      expect(['ok', 'unavailable']).toContain(await queued);
      expect(['ok', 'unavailable']).toContain(await queuedOnCopy);
      await eventually(() => (client.isReady ? true : undefined), 'the client to reconnect', 20_000);
      armed.mockClear();
      await expect(client.ping()).resolves.toBe('PONG');
      expect(armed).not.toHaveBeenCalled();
    } finally {
      armed.mockRestore();
      copy.destroy();
    }
  });
});
