/**
 * DecisionFeed against real Redis servers: the run's shared one, and a private one this suite
 * restarts (restarting the shared server would disturb the suites running beside this one).
 */
import { provideRedis, type RedisHandle } from '@ahp/embedded-redis';
import type { HookDecision } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createDecisionFeed,
  createRedisStores,
  type DecisionFeed,
  type RedisClient,
  type RedisStores,
  type StoreKeys,
} from '../src/index.js';
import { eventually, makeDecision, makeSignal, openClient, randomUUID, recordingLogger, testKeys } from './support.js';

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;
const feeds: DecisionFeed[] = [];

beforeAll(async () => {
  redis = await openClient('store-test:feed');
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

/** Opens and decides a hook owned by `gatewayId`; returns the decision. */
async function decideFor(target: RedisStores, gatewayId: string): Promise<HookDecision> {
  const hookId = randomUUID();
  const now = Date.now();
  await target.hooks.open({ hookId, agentId: 'agent-1', sessionId: 'session-1', gatewayId, trigger: 'pre-tool-use', now, deadlineAt: now + 5_000 });
  const decision = makeDecision(hookId, [makeSignal('control')]);
  await target.hooks.decide(hookId, decision, now);
  return decision;
}

function startFeed(client: RedisClient, feedKeys: StoreKeys, gatewayId: string, blockMs?: number) {
  const logger = recordingLogger();
  const received: HookDecision[] = [];
  const feed = createDecisionFeed({ redis: client, keys: feedKeys, gatewayId, logger, ...(blockMs === undefined ? {} : { blockMs }) });
  feeds.push(feed);
  return { feed, logger, received, started: feed.start((decision) => received.push(decision)) };
}

describe('DecisionFeed', () => {
  it("delivers decisions routed to its gateway after start, and only those", async () => {
    const before = await decideFor(stores, 'gw-a');
    const { received, started } = startFeed(redis, keys, 'gw-a');
    await started;

    const first = await decideFor(stores, 'gw-a');
    await decideFor(stores, 'gw-b');
    const second = await decideFor(stores, 'gw-a');

    await eventually(() => (received.length >= 2 ? true : undefined), 'two decisions');
    expect(received).toEqual([first, second]);
    expect(received).not.toContainEqual(before);
  });

  it('keeps its stream from expiring while it runs: the TTL is refreshed every quarter of it, and no longer once stopped', async () => {
    const streamTtlMs = 60_000;
    await decideFor(stores, 'gw-a');
    const stream = keys.gatewayDecisions('gw-a');
    // Only the feed's refresh interval is faked: Redis, XREAD and the waits below run on real time.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const feed = createDecisionFeed({ redis, keys, gatewayId: 'gw-a', logger: recordingLogger(), streamTtlMs });
      feeds.push(feed);
      await feed.start(() => undefined);
      await eventually(async () => ((await redis.pTTL(stream)) > streamTtlMs - 5_000 ? true : undefined), 'the TTL refreshed at start');

      await redis.pExpire(stream, 1_000);
      vi.advanceTimersByTime(streamTtlMs / 4);
      await eventually(async () => ((await redis.pTTL(stream)) > streamTtlMs - 5_000 ? true : undefined), 'the TTL refreshed a quarter TTL later');

      await feed.stop();
      await redis.pExpire(stream, 1_000);
      vi.advanceTimersByTime(streamTtlMs);
      expect(await redis.pTTL(stream)).toBeLessThanOrEqual(1_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('skips and logs an entry that does not parse, then goes on', async () => {
    const { received, logger, started } = startFeed(redis, keys, 'gw-a');
    await started;
    const stream = keys.gatewayDecisions('gw-a');
    await redis.xAdd(stream, '*', { hook_id: 'x', decision: '{not json' });
    await redis.xAdd(stream, '*', { hook_id: 'x', decision: JSON.stringify({ hook_id: 'x' }) });
    await redis.xAdd(stream, '*', { unrelated: 'field' });
    const good = await decideFor(stores, 'gw-a');

    await eventually(() => (received.length >= 1 ? true : undefined), 'the valid decision');
    expect(received).toEqual([good]);
    const skipped = logger.lines.filter((line) => line.level === 'error' && line.message.includes('does not parse'));
    expect(skipped).toHaveLength(3);
    expect(skipped[0]!.fields).toMatchObject({ gatewayId: 'gw-a', stream });
  });

  it('keeps delivering when the handler throws', async () => {
    const logger = recordingLogger();
    const received: HookDecision[] = [];
    const feed = createDecisionFeed({ redis, keys, gatewayId: 'gw-a', logger });
    feeds.push(feed);
    await feed.start((decision) => {
      received.push(decision);
      if (received.length === 1) throw new Error('handler bug');
    });
    await decideFor(stores, 'gw-a');
    await decideFor(stores, 'gw-a');
    await eventually(() => (received.length >= 2 ? true : undefined), 'both decisions');
    expect(logger.lines.some((line) => line.message === 'decision handler threw')).toBe(true);
  });

  it('stops while XREAD blocks, without waiting for its timeout; stop is idempotent and final', async () => {
    const { feed, started } = startFeed(redis, keys, 'gw-a', 600_000);
    await started;
    // Each stop resolves although the blocking read would otherwise wait ten minutes (the test timeout is 30 s).
    await Promise.all([feed.stop(), feed.stop()]);
    await feed.stop();
    await expect(feed.start(() => undefined)).rejects.toThrow(/already started/);
    // The shared client is untouched.
    await expect(redis.ping()).resolves.toBe('PONG');
  });

  describe('across a Redis restart', () => {
    let server: RedisHandle;
    let client: RedisClient;

    beforeAll(async () => {
      server = await provideRedis({ mode: 'ephemeral' });
      client = await openClient('store-test:feed-restart', server.url);
    });
    afterAll(async () => {
      await client?.close();
      await server?.stop();
    });

    it('resumes from the last entry it saw and receives what is routed after the restart', async () => {
      const ownKeys = testKeys('feed-restart');
      const own = createRedisStores({ redis: client, keys: ownKeys });
      const { received, logger, started } = startFeed(client, ownKeys, 'gw-a', 1_000);
      await started;

      const beforeRestart = await decideFor(own, 'gw-a');
      await eventually(() => (received.length >= 1 ? true : undefined), 'the decision before the restart');

      await server.restart();
      // Commands wait in node-redis's offline queue until the client has reconnected.
      const afterRestart = await decideFor(own, 'gw-a');
      await eventually(() => (received.length >= 2 ? true : undefined), 'the decision after the restart', 20_000);

      expect(received).toEqual([beforeRestart, afterRestart]);
      expect(logger.lines.some((line) => line.level === 'warn')).toBe(true);
    });
  });
});
