/**
 * ShadowConfigStore against the run's Redis: numbering, "unchanged", drop and promote (atomic with
 * the live configuration, refusing a shadow replaced meanwhile), counters and examples, the watch.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createConfigStore,
  createShadowConfigStore,
  shadowKeys,
  type RedisClient,
  type RedisConfigStore,
  type ShadowConfigStore,
  type ShadowObservation,
  type StoreKeys,
} from '../src/index.js';
import { eventually, openClient, testKeys } from './support.js';

let redis: RedisClient;
let keys: StoreKeys;
let store: ShadowConfigStore;
let live: RedisConfigStore;

const T0 = Date.parse('2026-02-09T10:00:00.000Z');
const yaml = (n: number) => `# shadow text ${n}\nenvironment: e${n}\nhooks: {}\n`;
const parsed = (n: number) => ({ environment: `e${n}`, hooks: {} });

const seen = (over: Partial<ShadowObservation> = {}): ShadowObservation => ({
  shadow: 1,
  hookId: '0b7c6a4e-1d2f-4a3b-9c8d-7e6f5a4b3c2d',
  agentId: 'alice',
  trigger: 'pre-tool-use',
  at: T0,
  live: 'allow',
  shadowOutcome: 'allow',
  liveVersion: 1,
  fired: [],
  differing: [],
  ...over,
});

beforeAll(async () => {
  redis = await openClient('store-test:shadow');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  store = createShadowConfigStore({ redis, keys });
  live = createConfigStore({ redis, keys });
});

describe('ShadowConfigStore', () => {
  it('numbers shadows on their own, answers "unchanged" for the current text and keeps every text', async () => {
    expect(await store.current()).toBeNull();
    expect(await store.set({ source: yaml(1), config: parsed(1), publishedBy: 'ann', now: T0, liveVersion: null })).toEqual({ shadow: 1, unchanged: false });
    expect(await store.set({ source: yaml(1), config: parsed(1), publishedBy: 'bob', now: T0 + 1, liveVersion: null })).toEqual({ shadow: 1, unchanged: true });
    expect(await store.set({ source: yaml(2), config: parsed(2), publishedBy: 'bob', now: T0 + 2, liveVersion: 4 })).toEqual({ shadow: 2, unchanged: false });
    expect(await store.current()).toMatchObject({ shadow: 2, source: yaml(2), published_by: 'bob', live_version: 4, config: parsed(2) });
    expect((await store.get(1))?.source).toBe(yaml(1));
    expect(await live.currentVersion()).toBeNull();
  });

  it('drops the current shadow, and refuses to drop one that is not current', async () => {
    await store.set({ source: yaml(1), config: parsed(1), publishedBy: 'ann', now: T0, liveVersion: null });
    expect(await store.drop(7)).toEqual({ outcome: 'conflict', current: 1 });
    expect(await store.drop(1)).toEqual({ outcome: 'dropped', shadow: 1 });
    expect(await store.drop()).toEqual({ outcome: 'none' });
    expect(await store.currentNumber()).toBeNull();
  });

  it('promotes the shadow to the next live version in one step, and refuses a shadow replaced meanwhile', async () => {
    await live.publish({ source: yaml(10), config: parsed(10), publishedBy: 'ann', now: T0 });
    await store.set({ source: yaml(1), config: parsed(1), publishedBy: 'ann', now: T0, liveVersion: 1 });
    await store.set({ source: yaml(2), config: parsed(2), publishedBy: 'ann', now: T0, liveVersion: 1 });
    expect(await store.promote({ expected: 1, publishedBy: 'root', now: T0 + 5 })).toEqual({ outcome: 'conflict', current: 2 });
    expect(await live.currentVersion()).toBe(1);
    expect(await store.promote({ expected: 2, publishedBy: 'root', now: T0 + 5 })).toEqual({ outcome: 'promoted', shadow: 2, version: 2, unchanged: false });
    expect(await live.current()).toMatchObject({ version: 2, source: yaml(2), published_by: 'root', config: parsed(2) });
    expect(await store.currentNumber()).toBeNull();
    expect(await store.promote({ publishedBy: 'root', now: T0 })).toEqual({ outcome: 'none' });
  });

  it('counts hooks, disagreements by transition and by rule, and keeps the newest examples', async () => {
    await store.set({ source: yaml(1), config: parsed(1), publishedBy: 'ann', now: T0, liveVersion: 1 });
    expect(await store.record(seen())).toBe(true);
    expect(await store.record(seen({ fired: ['guard/prompt-x'] , live: 'prompt', shadowOutcome: 'prompt' }))).toBe(true);
    expect(await store.record(seen({ hookId: 'h-2', fired: ['git/no-force'], differing: ['git/no-force'], shadowOutcome: 'block' }))).toBe(true);
    expect(await store.record(seen({ hookId: 'h-3', shadowOutcome: undefined }))).toBe(true);
    const stats = await store.stats(1);
    expect(stats).toMatchObject({ evaluated: 3, errors: 1, skipped_busy: 0, disagreements: 1, transitions: { 'allow→block': 1 } });
    expect(stats.rules).toEqual([
      { rule: 'git/no-force', fired: 1, disagreements: 1, transitions: { 'allow→block': 1 } },
      { rule: 'guard/prompt-x', fired: 1, disagreements: 0, transitions: {} },
    ]);
    expect(stats.examples).toEqual([
      { hook_id: 'h-2', agent_id: 'alice', trigger: 'pre-tool-use', at: '2026-02-09T10:00:00.000Z', live: 'allow', shadow: 'block', live_version: 1, rules: ['git/no-force'] },
    ]);
  });

  it('counts skipped hooks; counts nothing for a shadow that is no longer current, and gives a finished shadow\'s counters a retention', async () => {
    await store.set({ source: yaml(1), config: parsed(1), publishedBy: 'ann', now: T0, liveVersion: null });
    await store.record(seen({ differing: ['r/x'], fired: ['r/x'], shadowOutcome: 'block' }));
    expect(await store.recordSkipped(1, 3)).toBe(true);
    expect(await store.recordSkipped(1, 2)).toBe(true);
    expect((await store.stats(1)).skipped_busy).toBe(5);
    await store.drop();
    expect(await store.record(seen())).toBe(false);
    expect(await store.recordSkipped(1, 4)).toBe(false);
    expect((await store.stats(1)).skipped_busy).toBe(5);
    expect((await store.stats(1)).evaluated).toBe(1);
    expect(await redis.pTTL(shadowKeys(keys).stats(1))).toBeGreaterThan(0);
    expect(await redis.pTTL(shadowKeys(keys).examples(1))).toBeGreaterThan(0);
  });

  it('keeps at most 50 examples, newest first', async () => {
    await store.set({ source: yaml(1), config: parsed(1), publishedBy: 'ann', now: T0, liveVersion: null });
    for (let i = 0; i < 55; i += 1) await store.record(seen({ hookId: `h-${i}`, shadowOutcome: 'prompt' }));
    const stats = await store.stats(1);
    expect(stats.disagreements).toBe(55);
    expect(stats.examples).toHaveLength(50);
    expect(stats.examples[0]?.hook_id).toBe('h-54');
  });

  it('watch delivers the current shadow, every change and its end', async () => {
    const delivered: (number | null)[] = [];
    const watch = await store.watch((n) => delivered.push(n), { recheckMs: 100 });
    try {
      expect(delivered).toEqual([null]);
      await store.set({ source: yaml(1), config: parsed(1), publishedBy: 'ann', now: T0, liveVersion: null });
      await eventually(() => (delivered.at(-1) === 1 ? true : undefined), 'shadow 1');
      await store.drop();
      await eventually(() => (delivered.at(-1) === null && delivered.length === 3 ? true : undefined), 'no shadow');
      expect(delivered).toEqual([null, 1, null]);
    } finally {
      await watch.stop();
    }
  });
});
