/**
 * EnforcementStore against the run's Redis (its cluster under `AHP_TEST_REDIS=cluster`), with the
 * real HookStore, SignalStore and RuleCounterStore writing the state: an agent held by an
 * unanswered block signal, with tripped-looking breakers and escalation counters, is lifted by an
 * operator's reset — the parts asked for, in one step, the values before reported — and nothing of
 * another agent or of a shadow configuration moves.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  StoreInputError,
  createEnforcementStore,
  createKeys,
  createRedisStores,
  createRuleCounterStore,
  type EnforcementStore,
  type OpenHookInput,
  type RedisClient,
  type RedisStores,
  type RuleCounterStore,
  type StoreKeys,
} from '../src/index.js';
import { makeDecision, makeSignal, openClient, randomUUID, testKeys } from './support.js';

const TTL = 60_000;
const RULE = 'pre-tool-use/policy/no-force-push';
const ODD_RULE = 'a rule {with braces}';

let redis: RedisClient;
let keys: StoreKeys;
let stores: RedisStores;
let counters: RuleCounterStore;
let enforcement: EnforcementStore;

beforeAll(async () => {
  redis = await openClient('store-test:enforcement');
});
afterAll(async () => {
  await redis.close();
});
beforeEach((context) => {
  keys = testKeys(context.task.name);
  stores = createRedisStores({ redis, keys });
  counters = createRuleCounterStore({ redis, keys });
  enforcement = createEnforcementStore({ redis, keys });
});

function openInput(agentId: string, now: number, overrides: Partial<OpenHookInput> = {}): OpenHookInput {
  return { hookId: randomUUID(), agentId, sessionId: `${agentId}-s1`, gatewayId: 'gw-a', trigger: 'pre-tool-use', now, deadlineAt: now + 5_000, ...overrides };
}

/** Gives `agentId` a block signal past its grace, 3 + 1 rule violations, a call made 4 times and another once, 3 iterations. */
async function enforce(agentId: string, now: number): Promise<string> {
  const input = openInput(agentId, now);
  expect((await stores.hooks.open(input)).kind).toBe('created');
  const block = makeSignal('block');
  await stores.hooks.decide(input.hookId, makeDecision(input.hookId, [block]), now, { answerGraceMs: 1_000 });
  for (let i = 0; i < 3; i++) await counters.recordViolation({ agentId, ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL });
  await counters.recordViolation({ agentId, ruleKey: ODD_RULE, hookId: randomUUID(), ttlMs: TTL });
  for (let i = 0; i < 4; i++) await counters.countToolCall({ agentId, signature: 'bash:make', hookId: randomUUID(), ttlMs: TTL });
  await counters.countToolCall({ agentId, signature: 'bash:ls', hookId: randomUUID(), ttlMs: TTL });
  for (const iteration of [1, 2, 3]) await counters.countIteration({ agentId, iteration, ttlMs: TTL });
  return block.header.id;
}

describe('EnforcementStore', () => {
  it('lifts the hold, the breakers and the escalation counters of one agent in one step, reporting what they held', async () => {
    const t = Date.now();
    const block = await enforce('stuck', t);
    await enforce('bystander', t);
    const shadow = createRuleCounterStore({ redis, keys: createKeys({ prefix: `${keys.prefix}:shadow-1` }) });
    await shadow.recordViolation({ agentId: 'stuck', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL });
    expect(await stores.hooks.open(openInput('stuck', t + 2_000, { sessionId: 'a-new-session' }))).toEqual({ kind: 'unanswered', signalIds: [block] });

    // Rule keys that are not plain ids (these have slashes and braces) are named by their digest, as in their key.
    const named = (ruleKey: string) => keys.ruleCounter('stuck', ruleKey).split(':').at(-1)!;
    const state = {
      breakers: { identical_calls: { distinct: 2, highest: 4 }, iterations: 3 },
      hold: { unanswered: 1, signal_ids: [block] },
      escalation: { rules: 2, counters: [{ rule: named(RULE), violations: 3 }, { rule: named(ODD_RULE), violations: 1 }] },
    };
    expect(await enforcement.read('stuck')).toEqual(state);

    const result = await enforcement.reset('stuck', []);
    expect(result).toEqual({ parts: ['breakers', 'hold', 'escalation'], before: state, changed: true });
    expect(await enforcement.read('stuck')).toEqual({
      breakers: { identical_calls: { distinct: 0, highest: 0 }, iterations: 0 },
      hold: { unanswered: 0, signal_ids: [] },
      escalation: { rules: 0, counters: [] },
    });
    // The agent is let through and counts from zero again, in any session.
    expect((await stores.hooks.open(openInput('stuck', t + 2_000, { sessionId: 'a-new-session' }))).kind).toBe('created');
    expect(await counters.recordViolation({ agentId: 'stuck', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })).toBe(1);
    expect(await counters.countToolCall({ agentId: 'stuck', signature: 'bash:make', hookId: randomUUID(), ttlMs: TTL })).toBe(1);
    expect(await counters.countIteration({ agentId: 'stuck', iteration: 4, ttlMs: TTL })).toBe(1);
    // Another agent and the shadow configuration's counters are untouched.
    expect((await enforcement.read('bystander')).escalation?.rules).toBe(2);
    expect((await stores.hooks.open(openInput('bystander', t + 2_000))).kind).toBe('unanswered');
    expect(await shadow.recordViolation({ agentId: 'stuck', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })).toBe(2);
  });

  it('resets only the parts named, and reports only those', async () => {
    const t = Date.now();
    const block = await enforce('stuck', t);
    const breakers = await enforcement.reset('stuck', ['breakers']);
    expect(breakers).toEqual({ parts: ['breakers'], before: { breakers: { identical_calls: { distinct: 2, highest: 4 }, iterations: 3 } }, changed: true });
    const after = await enforcement.read('stuck');
    expect(after.breakers).toEqual({ identical_calls: { distinct: 0, highest: 0 }, iterations: 0 });
    expect(after.hold).toEqual({ unanswered: 1, signal_ids: [block] });
    expect(after.escalation?.rules).toBe(2);

    const rest = await enforcement.reset('stuck', ['escalation', 'hold']);
    expect(rest.parts).toEqual(['hold', 'escalation']);
    expect(rest.before.breakers).toBeUndefined();
    expect(rest.before.hold).toEqual({ unanswered: 1, signal_ids: [block] });
    expect(await enforcement.read('stuck')).toMatchObject({ hold: { unanswered: 0 }, escalation: { rules: 0 } });
  });

  it('forgets the count a hook got with the breakers, so a hook evaluated again after the reset counts anew', async () => {
    const hookId = randomUUID();
    for (let i = 0; i < 3; i++) await counters.countToolCall({ agentId: 'stuck', signature: 'bash:make', hookId: randomUUID(), ttlMs: TTL });
    expect(await counters.countToolCall({ agentId: 'stuck', signature: 'bash:make', hookId, ttlMs: TTL })).toBe(4);
    await enforcement.reset('stuck', ['breakers']);
    expect(await counters.countToolCall({ agentId: 'stuck', signature: 'bash:make', hookId, ttlMs: TTL })).toBe(1);
  });

  it('changes nothing for an agent without enforcement state, and refuses what cannot be a key or a part', async () => {
    expect(await enforcement.reset('calm', [])).toEqual({
      parts: ['breakers', 'hold', 'escalation'],
      before: { breakers: { identical_calls: { distinct: 0, highest: 0 }, iterations: 0 }, hold: { unanswered: 0, signal_ids: [] }, escalation: { rules: 0, counters: [] } },
      changed: false,
    });
    await expect(enforcement.reset('a}b', [])).rejects.toBeInstanceOf(StoreInputError);
    await expect(enforcement.reset('calm', ['everything' as 'hold'])).rejects.toBeInstanceOf(StoreInputError);
  });
});
