import { describe, expect, it } from 'vitest';
import { createMemoryRuleCounters } from './counters.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('createMemoryRuleCounters', () => {
  it('counts consecutive violations per agent and rule, and a compliance restarts the count', async () => {
    const counters = createMemoryRuleCounters();
    const v = (agentId: string, ruleKey: string, hookId: string) => counters.recordViolation({ agentId, ruleKey, hookId, ttlMs: 60_000 });
    expect(await v('a', 'r', 'h1')).toBe(1);
    expect(await v('a', 'r', 'h2')).toBe(2);
    expect(await v('b', 'r', 'h3')).toBe(1);
    expect(await v('a', 'other', 'h4')).toBe(1);
    await counters.recordCompliance({ agentId: 'a', ruleKey: 'r', hookId: 'h5' });
    expect(await v('a', 'r', 'h6')).toBe(1);
  });

  it('is idempotent per hook: a re-evaluated hook gets the same count and changes nothing', async () => {
    const counters = createMemoryRuleCounters();
    const v = (hookId: string) => counters.recordViolation({ agentId: 'a', ruleKey: 'r', hookId, ttlMs: 60_000 });
    expect(await v('h1')).toBe(1);
    expect(await v('h1')).toBe(1);
    expect(await v('h2')).toBe(2);
    expect(await v('h1')).toBe(1);
    expect(await v('h3')).toBe(3);
    // A re-run of an old compliance must not reset a newer streak.
    await counters.recordCompliance({ agentId: 'a', ruleKey: 'r', hookId: 'c1' });
    expect(await v('h4')).toBe(1);
    await counters.recordCompliance({ agentId: 'a', ruleKey: 'r', hookId: 'c1' });
    expect(await v('h5')).toBe(2);
  });

  it('forgets a streak ttl after its last violation', async () => {
    const time = clock();
    const counters = createMemoryRuleCounters({ now: time.now });
    const v = (hookId: string) => counters.recordViolation({ agentId: 'a', ruleKey: 'r', hookId, ttlMs: 1000 });
    expect(await v('h1')).toBe(1);
    time.advance(999);
    expect(await v('h2')).toBe(2);
    time.advance(999);
    expect(await v('h3')).toBe(3);
    time.advance(1000);
    expect(await v('h4')).toBe(1);
  });

  it('counts identical tool calls per agent and signature, once per hook', async () => {
    const counters = createMemoryRuleCounters();
    const call = (agentId: string, signature: string, hookId: string) => counters.countToolCall({ agentId, signature, hookId, ttlMs: 60_000 });
    expect(await call('a1', 'sig', 'h1')).toBe(1);
    expect(await call('a1', 'sig', 'h2')).toBe(2);
    expect(await call('a1', 'sig', 'h2')).toBe(2);
    expect(await call('a1', 'other', 'h3')).toBe(1);
    expect(await call('a2', 'sig', 'h4')).toBe(1);
  });

  it('counts distinct iterations per agent', async () => {
    const time = clock();
    const counters = createMemoryRuleCounters({ now: time.now });
    const it = (agentId: string, iteration: number) => counters.countIteration({ agentId, iteration, ttlMs: 1000 });
    expect(await it('a1', 1)).toBe(1);
    expect(await it('a1', 1)).toBe(1);
    expect(await it('a1', 2)).toBe(2);
    expect(await it('a2', 7)).toBe(1);
    time.advance(1000);
    expect(await it('a1', 3)).toBe(1);
  });

  it('refuses nonsense TTLs and iterations', async () => {
    const counters = createMemoryRuleCounters();
    await expect(counters.recordViolation({ agentId: 'a', ruleKey: 'r', hookId: 'h', ttlMs: 0 })).rejects.toThrow(RangeError);
    await expect(counters.countIteration({ agentId: 'a', iteration: 1.5, ttlMs: 1 })).rejects.toThrow(RangeError);
  });
});
