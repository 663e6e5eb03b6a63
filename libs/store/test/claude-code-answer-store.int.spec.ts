/**
 * ClaudeCodeAnswerStore against the run's Redis: put/take (taken once), a value that does not
 * parse, and the signal log states of a client that cannot report answers (decide-hook writes
 * `not_reported` for a hook opened with answersRequired false; respond-signal with origin
 * `inferred` writes `inferred`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreDataError, StoreInputError, createClaudeCodeAnswerStore, createRedisStores, exportSignalLog, type RedisClient } from '../src/index.js';
import { makeDecision, makeSignal, openClient, randomUUID, testKeys } from './support.js';

let redis: RedisClient;

beforeAll(async () => {
  redis = await openClient('store-test:claude-code-answers');
});
afterAll(async () => {
  await redis.close();
});

const PENDING = { signal_id: randomUUID(), intensity: 'control' as const, tool_name: 'Bash', input_sha256: 'a'.repeat(64), tool_use_id: 'toolu_1' };

describe('ClaudeCodeAnswerStore', () => {
  it('gives the pending answers once, then nothing', async () => {
    const store = createClaudeCodeAnswerStore(redis, testKeys('cc-answers-take'));
    await store.put('cc-session', [PENDING], 60_000);
    expect(await store.take('cc-session')).toEqual([PENDING]);
    expect(await store.take('cc-session')).toEqual([]);
  });

  it('refuses invalid input before writing and names the key of a stored value that does not parse', async () => {
    const keys = testKeys('cc-answers-bad');
    const store = createClaudeCodeAnswerStore(redis, keys);
    await expect(store.put('cc-session', [{ ...PENDING, input_sha256: 'not a digest' }], 60_000)).rejects.toBeInstanceOf(StoreInputError);
    await redis.set(keys.claudeCodePendingAnswers('cc-session'), '{"not":"a list"}');
    await expect(store.take('cc-session')).rejects.toBeInstanceOf(StoreDataError);
  });
});

describe('the signal log of a client that cannot report answers', () => {
  it('marks its signals not_reported, and an inferred answer as inferred', async () => {
    const keys = testKeys('cc-answers-log');
    const stores = createRedisStores({ redis, keys });
    const hookId = randomUUID();
    const now = Date.now();
    await stores.hooks.open({ hookId, agentId: 'claude', sessionId: 'cc-s', gatewayId: 'gw-a', trigger: 'pre-tool-use', now, deadlineAt: now + 5_000, answersRequired: false });
    const control = makeSignal('control');
    const block = makeSignal('block');
    await stores.hooks.decide(hookId, makeDecision(hookId, [control, block], 'pre-tool-use'), now);
    await stores.signals.respond('claude', { signal_id: control.header.id, consumed_at: new Date(now).toISOString(), action: 'accept_modification' }, now, 'inferred');
    const { lines } = await exportSignalLog(redis, keys);
    const byId = new Map(lines.map((line) => [line.signal_id, line]));
    expect(byId.get(control.header.id)).toMatchObject({ consumed: true, action: 'accept_modification', answer: 'inferred' });
    expect(byId.get(block.header.id)).toMatchObject({ consumed: false, answer: 'not_reported' });
  });
});
