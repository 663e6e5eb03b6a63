/**
 * ConfigStore against the run's Redis: gapless versions under concurrent publishers, "unchanged"
 * for the current text, history, reads parsed with the protocol schema, and the watch.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreDataError, StoreInputError, configDigest, createConfigStore, type RedisClient, type RedisConfigStore, type StoreKeys } from '../src/index.js';
import { eventually, openClient, testKeys } from './support.js';

let redis: RedisClient;
let other: RedisClient;
let keys: StoreKeys;
let store: RedisConfigStore;

const T0 = Date.parse('2026-02-09T10:00:00.000Z');
const yaml = (n: number) => `# version text ${n}\nenvironment: e${n}\nhooks: {}\n`;
/** The parsed form of {@link yaml}. */
const parsed = (n: number) => ({ environment: `e${n}`, hooks: {} });

beforeAll(async () => {
  redis = await openClient('store-test:config');
  other = await openClient('store-test:config-2');
});
afterAll(async () => {
  await redis.close();
  await other.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  store = createConfigStore({ redis, keys });
});

describe('ConfigStore', () => {
  it('has no current version before the first publish', async () => {
    expect(await store.current()).toBeNull();
    expect(await store.currentVersion()).toBeNull();
    expect(await store.history(10)).toEqual([]);
    expect(await store.get(1)).toBeNull();
  });

  it('stores a version with its text, digest, publisher and parsed config, and makes it current', async () => {
    const source = yaml(1);
    const outcome = await store.publish({ source, config: parsed(1), publishedBy: 'alice', now: T0 });
    expect(outcome).toEqual({ version: 1, unchanged: false });
    const current = await store.current();
    expect(current).toEqual({
      version: 1,
      source,
      digest: configDigest(source),
      published_at: '2026-02-09T10:00:00.000Z',
      published_by: 'alice',
      config: parsed(1),
    });
    expect(await store.get(1)).toEqual(current);
  });

  it('answers "unchanged" for the current text, and publishes an earlier text again as a new version', async () => {
    await store.publish({ source: yaml(1), config: parsed(1), publishedBy: 'a', now: T0 });
    expect(await store.publish({ source: yaml(1), config: parsed(1), publishedBy: 'b', now: T0 + 1 })).toEqual({ version: 1, unchanged: true });
    expect(await store.publish({ source: yaml(2), config: parsed(2), publishedBy: 'a', now: T0 + 2 })).toEqual({ version: 2, unchanged: false });
    expect(await store.publish({ source: yaml(1), config: parsed(1), publishedBy: 'a', now: T0 + 3 })).toEqual({ version: 3, unchanged: false });
    expect((await store.current())?.config).toEqual(parsed(1));
  });

  it('gives concurrent publishers from two connections distinct versions without gaps', async () => {
    const second = createConfigStore({ redis: other, keys });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : second).publish({ source: yaml(i), config: parsed(i), publishedBy: `p${i}`, now: T0 + i })),
    );
    expect(outcomes.every((o) => !o.unchanged)).toBe(true);
    expect(outcomes.map((o) => o.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Each version holds the text of the call that got its number.
    for (const [i, outcome] of outcomes.entries()) expect((await store.get(outcome.version))?.source).toBe(yaml(i));
    expect(await store.currentVersion()).toBe(20);
  });

  it('lists history newest first, without text or config, up to the limit', async () => {
    for (let i = 1; i <= 4; i += 1) await store.publish({ source: yaml(i), config: parsed(0), publishedBy: `user-${i}`, now: T0 + i * 1000 });
    const history = await store.history(3);
    expect(history.map((h) => h.version)).toEqual([4, 3, 2]);
    expect(history[0]).toEqual({ version: 4, digest: configDigest(yaml(4)), published_at: new Date(T0 + 4000).toISOString(), published_by: 'user-4' });
    await expect(store.history(0)).rejects.toThrow(StoreInputError);
  });

  it('refuses what it cannot store, and reports a corrupt version with its key', async () => {
    await expect(store.publish({ source: 'x', config: parsed(0), publishedBy: '', now: T0 })).rejects.toThrow(StoreInputError);
    await expect(store.publish({ source: 'x', config: { hooks: { 'pre-deploy': { oracles: [] } } }, publishedBy: 'a', now: T0 })).rejects.toThrow(/unknown trigger/);
    await expect(store.publish({ source: 'x', config: { v: 1 }, publishedBy: 'a', now: T0 })).rejects.toThrow(StoreInputError);
    expect(await store.currentVersion()).toBeNull();
    await expect(store.publish({ source: 'x'.repeat(1024 * 1024 + 1), config: parsed(0), publishedBy: 'a', now: T0 })).rejects.toThrow(StoreInputError);
    await expect(store.get(0)).rejects.toThrow(StoreInputError);
    await redis.hSet(keys.configVersions, '7', '{"source":1}');
    await expect(store.get(7)).rejects.toThrow(StoreDataError);
    await redis.hSet(keys.configVersions, '8', 'not json');
    await expect(store.get(8)).rejects.toThrow(/configVersions|config:\{hooks\}:versions/);
  });

  it('watch: reports the current version at once, then every publish from another connection', async () => {
    await store.publish({ source: yaml(1), config: parsed(0), publishedBy: 'a', now: T0 });
    const seen: number[] = [];
    const watch = await store.watch((version) => seen.push(version), { recheckMs: 60_000 });
    try {
      expect(seen).toEqual([1]);
      const publisher = createConfigStore({ redis: other, keys });
      await publisher.publish({ source: yaml(2), config: parsed(0), publishedBy: 'b', now: T0 + 1 });
      await eventually(() => (seen.includes(2) ? true : undefined), 'the watch to hear version 2', 5_000);
      await publisher.publish({ source: yaml(2), config: parsed(0), publishedBy: 'b', now: T0 + 2 }); // unchanged: no announcement
      await publisher.publish({ source: yaml(3), config: parsed(0), publishedBy: 'b', now: T0 + 3 });
      await eventually(() => (seen.includes(3) ? true : undefined), 'the watch to hear version 3', 5_000);
      expect(seen).toEqual([1, 2, 3]);
    } finally {
      await watch.stop();
    }
  });

  it('watch: the periodic re-read finds a version whose announcement was lost', async () => {
    const seen: number[] = [];
    const watch = await store.watch((version) => seen.push(version), { recheckMs: 100 });
    try {
      expect(seen).toEqual([]);
      // Written as publish-config would, but without the PUBLISH: as if the message were lost.
      const payload = { source: yaml(5), digest: configDigest(yaml(5)), published_at: new Date(T0).toISOString(), published_by: 'x', config: parsed(5) };
      await redis.hSet(keys.configVersions, '1', JSON.stringify(payload));
      await redis.hSet(keys.configMeta, { seq: '1', current: '1', digest: payload.digest });
      await eventually(() => (seen.includes(1) ? true : undefined), 'the re-read to find version 1', 5_000);
    } finally {
      await watch.stop();
    }
    // Stopped: nothing more is delivered.
    await store.publish({ source: yaml(6), config: parsed(0), publishedBy: 'a', now: T0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen).toEqual([1]);
  });
});
