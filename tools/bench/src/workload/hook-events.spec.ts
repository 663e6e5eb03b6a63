import { randomUUID } from 'node:crypto';
import { defaultOracles, evaluateHook } from '@ahp/oracles';
import { HookFrameSchema, parseHookContext } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { BENCH_TRIGGER, TARGET_CONTEXT_BYTES, byteLength, hookEvent } from './hook-events.js';

describe('benchmark hook events', () => {
  it('are about 1 KB each, valid hook frames, and typed pre-tool-use contexts the gateway accepts', () => {
    for (let index = 0; index < 200; index += 1) {
      const { context } = hookEvent(index);
      expect(byteLength(context)).toBe(TARGET_CONTEXT_BYTES);
      expect(HookFrameSchema.safeParse({ type: 'hook', id: randomUUID(), trigger: BENCH_TRIGGER, context }).success).toBe(true);
      expect(parseHookContext(BENCH_TRIGGER, context)).toMatchObject({ ok: true });
    }
  });

  it('are deterministic', () => {
    expect(hookEvent(1234)).toEqual(hookEvent(1234));
  });

  it('mix 90 % allowed, 5 % rewritten and 5 % denied calls', () => {
    const counts = { allow: 0, rewrite: 0, deny: 0 };
    for (let index = 0; index < 1000; index += 1) counts[hookEvent(index).expected] += 1;
    expect(counts).toEqual({ allow: 900, rewrite: 50, deny: 50 });
  });

  it('get from the default rules exactly the outcome the mix says', async () => {
    const oracles = defaultOracles();
    for (let index = 0; index < 20; index += 1) {
      const event = hookEvent(index);
      const decision = await evaluateHook({
        input: { hookId: randomUUID(), trigger: BENCH_TRIGGER, context: event.context, agent: { id: 'bench', name: 'Bench' }, sessionId: 'session-1' },
        oracles,
        now: () => new Date(),
        newId: randomUUID,
        budgetMs: 1000,
      });
      const outcome = !decision.allowed ? 'deny' : decision.modifications.length > 0 ? 'rewrite' : 'allow';
      expect(outcome, `event ${index}`).toBe(event.expected);
      expect(decision.decided_by).toBe('oracles');
    }
  });
});
