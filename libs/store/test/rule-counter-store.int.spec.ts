/**
 * RuleCounterStore against the run's Redis: atomic counts under concurrency from two clients,
 * idempotency per hook, compliance resets, TTLs, and the circuit-breaker counters.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreInputError, createRuleCounterStore, type RedisClient, type RuleCounterStore, type StoreKeys } from '../src/index.js';
import { openClient, randomUUID, testKeys } from './support.js';

let redis: RedisClient;
let other: RedisClient;
let keys: StoreKeys;
let counters: RuleCounterStore;
let counters2: RuleCounterStore;

beforeAll(async () => {
  redis = await openClient('store-test:rules');
  other = await openClient('store-test:rules-2');
});
afterAll(async () => {
  await redis.close();
  await other.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  counters = createRuleCounterStore({ redis, keys });
  counters2 = createRuleCounterStore({ redis: other, keys });
});

const RULE = 'pre-issue-submit/checklist-validator/0';
const TTL = 60_000;

describe('RuleCounterStore: progressive intervention', () => {
  it('counts consecutive violations, and a compliance starts again from zero', async () => {
    const v = () => counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL });
    expect([await v(), await v(), await v()]).toEqual([1, 2, 3]);
    await counters.recordCompliance({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID() });
    expect(await v()).toBe(1);
  });

  it('keeps agents and rules apart, and accepts any rule key', async () => {
    const odd = 'rule with spaces & {braces} / ünïcode';
    expect(await counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })).toBe(1);
    expect(await counters.recordViolation({ agentId: 'a2', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })).toBe(1);
    expect(await counters.recordViolation({ agentId: 'a1', ruleKey: odd, hookId: randomUUID(), ttlMs: TTL })).toBe(1);
    expect(await counters.recordViolation({ agentId: 'a1', ruleKey: odd, hookId: randomUUID(), ttlMs: TTL })).toBe(2);
    expect(keys.ruleCounter('a1', odd)).toMatch(/:rule:\{a1\}:sha256-[0-9a-f]{64}$/);
  });

  it('gives 20 concurrent violations from two clients the counts 1…20, each once', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? counters : counters2).recordViolation({ agentId: 'busy', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })),
    );
    expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await redis.hGet(keys.ruleCounter('busy', RULE), 'n')).toBe('20');
  });

  it('counts a hook once however often it is evaluated, also concurrently, and answers each time with its own count', async () => {
    const hookA = randomUUID();
    const hookB = randomUUID();
    const input = (hookId: string) => ({ agentId: 'a1', ruleKey: RULE, hookId, ttlMs: TTL });
    const firstA = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? counters : counters2).recordViolation(input(hookA))));
    expect(firstA).toEqual(Array(10).fill(1));
    expect(await counters.recordViolation(input(hookB))).toBe(2);
    expect(await counters2.recordViolation(input(hookA))).toBe(1); // a re-run of the older hook: same answer, no count
    expect(await counters.recordViolation(input(randomUUID()))).toBe(3);
  });

  it('ignores a re-run of an old compliance: it must not reset a newer streak', async () => {
    const compliant = randomUUID();
    await counters.recordCompliance({ agentId: 'a1', ruleKey: RULE, hookId: compliant });
    expect(await counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })).toBe(1);
    expect(await counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })).toBe(2);
    await counters2.recordCompliance({ agentId: 'a1', ruleKey: RULE, hookId: compliant });
    expect(await counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })).toBe(3);
  });

  it('remembers a bounded number of hooks per counter', async () => {
    const small = createRuleCounterStore({ redis, keys, rememberHooks: 3 });
    const hooks = Array.from({ length: 5 }, () => randomUUID());
    for (const hookId of hooks) await small.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId, ttlMs: TTL });
    const fields = await redis.hKeys(keys.ruleCounter('a1', RULE));
    expect(fields.filter((f) => f.startsWith('v:')).sort()).toEqual(hooks.slice(2).map((h) => `v:${h}`).sort());
  });

  it('expires a counter after its TTL without violations', async () => {
    await counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID(), ttlMs: 150 });
    expect(await counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID(), ttlMs: 150 })).toBe(2);
    const ttl = await redis.pTTL(keys.ruleCounter('a1', RULE));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(150);
    await sleep(300);
    expect(await counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID(), ttlMs: 150 })).toBe(1);
  });

  it('gives a counter created by a compliance the compliance TTL, and keeps an existing TTL', async () => {
    const short = createRuleCounterStore({ redis, keys, complianceTtlMs: 5_000 });
    await short.recordCompliance({ agentId: 'c1', ruleKey: RULE, hookId: randomUUID() });
    expect(await redis.pTTL(keys.ruleCounter('c1', RULE))).toBeGreaterThan(4_000);
    await short.recordViolation({ agentId: 'c2', ruleKey: RULE, hookId: randomUUID(), ttlMs: 90_000 });
    await short.recordCompliance({ agentId: 'c2', ruleKey: RULE, hookId: randomUUID() });
    expect(await redis.pTTL(keys.ruleCounter('c2', RULE))).toBeGreaterThan(60_000);
  });

  it('refuses ids that cannot be part of a key and TTLs that are not positive', async () => {
    await expect(counters.recordViolation({ agentId: 'a}1', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })).rejects.toThrow(StoreInputError);
    await expect(counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: 'has space', ttlMs: TTL })).rejects.toThrow(StoreInputError);
    await expect(counters.recordViolation({ agentId: 'a1', ruleKey: RULE, hookId: randomUUID(), ttlMs: 0 })).rejects.toThrow(StoreInputError);
  });
});

describe('RuleCounterStore: circuit breakers', () => {
  it('counts identical tool calls per agent (over all its sessions) and signature, once per hook, atomically', async () => {
    const call = (signature: string, hookId = randomUUID(), store = counters) => store.countToolCall({ agentId: 'b1', signature, hookId, ttlMs: TTL });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call('bash:ls', randomUUID(), i % 2 ? counters : counters2)));
    expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await call('bash:pwd')).toBe(1);
    const hookId = randomUUID();
    expect(await call('x'.repeat(100_000), hookId)).toBe(1);
    expect(await call('x'.repeat(100_000), hookId)).toBe(1);
    expect(await counters.countToolCall({ agentId: 'b2', signature: 'bash:ls', hookId: randomUUID(), ttlMs: TTL })).toBe(1);
  });

  it('remembers a counted hook for as long as it may be evaluated again, in a mark that expires on its own', async () => {
    const hookId = randomUUID();
    const call = (rememberMs?: number) =>
      counters.countToolCall({ agentId: 'b3', signature: 'bash:make', hookId, ttlMs: TTL, ...(rememberMs === undefined ? {} : { rememberMs }) });
    expect(await call(150)).toBe(1);
    expect(await call(150)).toBe(1);
    const mark = keys.breakerCallMark('b3', hookId);
    const markTtl = await redis.pTTL(mark);
    expect(markTtl).toBeGreaterThan(0);
    expect(markTtl).toBeLessThanOrEqual(150);
    // The agent's count did not move for the repeat; the counter keeps the breaker's TTL.
    expect(await redis.hGet(keys.breakerCalls('b3'), `s:${createHash('sha256').update('bash:make').digest('hex')}`)).toBe('1');
    expect(await redis.pTTL(keys.breakerCalls('b3'))).toBeGreaterThan(150);
    await sleep(200);
    expect(await redis.exists(mark)).toBe(0);
    // Without a deadline the store remembers the hook for the longest one the protocol allows.
    const other = randomUUID();
    await counters.countToolCall({ agentId: 'b3', signature: 'bash:make', hookId: other, ttlMs: 6 * 3_600_000 });
    expect(await redis.pTTL(keys.breakerCallMark('b3', other))).toBeGreaterThan(15 * 60_000);
    await expect(call(0)).rejects.toThrow(StoreInputError);
  });

  it('counts distinct iterations per agent', async () => {
    const at = (iteration: number) => counters.countIteration({ agentId: 'b1', iteration, ttlMs: TTL });
    expect(await at(1)).toBe(1);
    expect(await at(2)).toBe(2);
    expect(await at(2)).toBe(2);
    expect(await Promise.all([at(3), at(4), at(3)])).toEqual(expect.arrayContaining([3, 4]));
    expect(await at(5)).toBe(5);
    await expect(at(-1)).rejects.toThrow(StoreInputError);
  });
});
