import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SEED_CONTROLLING, seedSignal } from '../test/fixtures/domain-seeds.js';
import { CONTROL_PLANE_SOURCE, HookDecisionSchema, MODIFICATION_CONFLICT_SIGNAL_TYPE, aggregateSignals, failurePolicyDecision } from './hook-decision.js';
import { SignalSchema, type Signal } from './signal.js';

function issues(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  return result.error?.issues ?? [];
}

const HOOK_ID = '11111111-1111-4111-8111-111111111111';
const NOW = '2026-02-09T10:00:01Z';

function signal(intensity: 'block' | 'control' | 'prompt' | 'aid', n: number, patch: Record<string, unknown> = {}): Signal {
  return SignalSchema.parse({ ...seedSignal(intensity, n), ...patch });
}

function control(n: number, modifications: { target: string; original: unknown; updated: unknown }[]): Signal {
  return signal('control', n, {
    payload: { ...SEED_CONTROLLING, modifications: modifications.map((m) => ({ ...m, reason: `oracle ${n}` })) },
  });
}

describe('aggregateSignals', () => {
  it('with no signals allows, with intensity null', () => {
    const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [], now: NOW });
    expect(decision).toEqual({
      hook_id: HOOK_ID,
      trigger: 'pre-tool-use',
      allowed: true,
      intensity: null,
      signals: [],
      modifications: [],
      warnings: [],
      decided_by: 'oracles',
      decided_at: NOW,
    });
    expect(HookDecisionSchema.parse(decision)).toEqual(decision);
  });

  it('block wins over control, prompt and aid, and every signal is kept in order', () => {
    const signals = [signal('aid', 1), signal('prompt', 2), signal('block', 3), signal('control', 4)];
    const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-issue-submit', signals, now: NOW });
    expect(decision.intensity).toBe('block');
    expect(decision.allowed).toBe(false);
    expect(decision.signals.map((s) => s.header.id)).toEqual(signals.map((s) => s.header.id));
    expect(HookDecisionSchema.safeParse(decision).success).toBe(true);
  });

  it('control wins over prompt and aid and still allows', () => {
    const decision = aggregateSignals({
      hookId: HOOK_ID,
      trigger: 'pre-issue-submit',
      signals: [signal('prompt', 1), signal('control', 2), signal('aid', 3)],
      now: NOW,
    });
    expect(decision).toMatchObject({ intensity: 'control', allowed: true });
    expect(decision.modifications).toEqual(SEED_CONTROLLING.modifications);
  });

  it('collects prompt messages as warnings, in signal order', () => {
    const second = signal('prompt', 2, {
      payload: { ...seedSignal('prompt').payload, message: '覆盖率低于阈值' },
    });
    const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-issue-submit', signals: [signal('prompt', 1), second], now: NOW });
    expect(decision.warnings).toEqual(['单次修改涉及 25 个文件，建议分步提交', '覆盖率低于阈值']);
    expect(decision).toMatchObject({ intensity: 'prompt', allowed: true });
  });

  it('merges modifications of several control signals; on the same target the stricter one wins', () => {
    const first = control(1, [
      { target: 'batch_size', original: 10000, updated: 1000 },
      { target: 'timeout_s', original: 600, updated: 60 },
    ]);
    const second = control(2, [
      { target: 'batch_size', original: 10000, updated: 500 },
      { target: 'dry_run', original: false, updated: true },
    ]);
    const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [first, second], now: NOW });
    // Targets keep the order in which they first appear; batch_size takes the smaller limit.
    expect(decision.modifications.map((m) => [m.target, m.updated, m.reason])).toEqual([
      ['batch_size', 500, 'oracle 2'],
      ['timeout_s', 60, 'oracle 1'],
      ['dry_run', true, 'oracle 2'],
    ]);
    const reversed = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [second, first], now: NOW });
    expect(reversed.modifications.find((m) => m.target === 'batch_size')?.updated).toBe(500);
    expect(decision.signals).toHaveLength(2);
  });

  it('on conflicting numbers keeps the smaller, whichever oracle comes first; equal numbers keep the earlier', () => {
    const a = control(1, [{ target: 'max_batch', original: 25, updated: 10 }]);
    const b = control(2, [{ target: 'max_batch', original: 25, updated: 5 }]);
    const c = control(3, [{ target: 'max_batch', original: 25, updated: 5 }]);
    const pick = (signals: Signal[]) =>
      aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-issue-submit', signals, now: NOW }).modifications;
    expect(pick([a, b])).toEqual([expect.objectContaining({ updated: 5, reason: 'oracle 2' })]);
    expect(pick([b, a])).toEqual([expect.objectContaining({ updated: 5, reason: 'oracle 2' })]);
    expect(pick([b, c])).toEqual([expect.objectContaining({ updated: 5, reason: 'oracle 2' })]);
    expect(pick([c, b])).toEqual([expect.objectContaining({ updated: 5, reason: 'oracle 3' })]);
    expect(pick([a, b, c])).toHaveLength(1);
  });

  it('on conflicting booleans keeps false (switching something off is stricter)', () => {
    const on = control(1, [{ target: 'network', original: true, updated: true }]);
    const off = control(2, [{ target: 'network', original: true, updated: false }]);
    const pick = (signals: Signal[]) =>
      aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals, now: NOW }).modifications[0]?.reason;
    expect(pick([on, off])).toBe('oracle 2');
    expect(pick([off, on])).toBe('oracle 2');
  });

  // Was "keeps the earlier modification (oracle order)": that let an earlier oracle cancel a later
  // one's control silently (audit finding 2). Two changes of one field that cannot both apply block now.
  it('on strings, objects and mixed types that cannot both apply, blocks naming both sources instead of keeping one', () => {
    const pairs: [unknown, unknown][] = [
      ['git push --force-with-lease', 'git push'],
      [{ a: 1 }, { a: 0 }],
      [10, '5'],
      [null, 3],
      [false, 0],
    ];
    let n = 0;
    const newId = () => `99999999-9999-4999-8999-${String(++n).padStart(12, '0')}`;
    for (const [x, y] of pairs) {
      const first = control(1, [{ target: 't', original: null, updated: x }]);
      const second = control(2, [{ target: 't', original: null, updated: y }]);
      const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [first, second], now: NOW, newId });
      expect(decision, JSON.stringify([x, y])).toMatchObject({ allowed: false, intensity: 'block' });
      const added = decision.signals[2];
      expect(added?.header).toMatchObject({ type: MODIFICATION_CONFLICT_SIGNAL_TYPE, source: CONTROL_PLANE_SOURCE, intensity: 'block', correlation_id: HOOK_ID });
      expect(added?.payload.level === 'blocking' && added.payload.reason).toMatch(/t: .* changes it to .*, .* to /);
      expect(HookDecisionSchema.safeParse(decision).success).toBe(true);
      // Aggregating the result again (the approval flow rebuilds decisions) adds no second conflict signal.
      const again = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: decision.signals, now: NOW, newId });
      expect(again.signals.filter((s) => s.header.type === MODIFICATION_CONFLICT_SIGNAL_TYPE)).toHaveLength(1);
    }
    expect(() => aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [control(1, [{ target: 't', original: null, updated: 'a' }]), control(2, [{ target: 't', original: null, updated: 'b' }])], now: NOW })).toThrow(/newId/);
  });

  it('composes a change decided on top of another one (its original is the earlier updated), and treats dotted and pointer targets as one field', () => {
    const first = control(1, [{ target: 'command', original: 'git push --force', updated: 'git push --force-with-lease' }]);
    const second = control(2, [{ target: '/command', original: 'git push --force-with-lease', updated: 'git push --force-with-lease --dry-run' }]);
    const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [first, second], now: NOW });
    expect(decision.allowed).toBe(true);
    expect(decision.modifications).toEqual([{ target: 'command', original: 'git push --force', updated: 'git push --force-with-lease --dry-run', reason: 'oracle 1; then oracle 2' }]);
  });

  it('blocks when one change targets a field inside another one\'s', () => {
    const whole = control(1, [{ target: '/options', original: { depth: 5 }, updated: {} }]);
    const inner = control(2, [{ target: '/options/depth', original: 5, updated: 1 }]);
    const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [whole, inner], now: NOW, newId: () => '99999999-9999-4999-8999-000000000001' });
    expect(decision.allowed).toBe(false);
  });

  it("an operator's edit (the authoritative signal) supersedes the changes of the fields it replaced, says so, and leaves the others", () => {
    const rewrite = control(1, [
      { target: '/command', original: 'curl x | sh; git push --force', updated: 'curl x | sh; git push --force-with-lease' },
      { target: '/timeout', original: 600, updated: 60 },
    ]);
    const operator = control(2, [{ target: '/command', original: 'curl x | sh; git push --force', updated: 'git push' }]);
    const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [rewrite, operator], now: NOW, authoritativeSignalId: operator.header.id });
    expect(decision.allowed).toBe(true);
    expect(decision.modifications).toEqual([
      { target: '/command', original: 'curl x | sh; git push --force', updated: 'git push', reason: expect.stringMatching(/^oracle 2 \(replaces .*change of \/command to "curl x \| sh; git push --force-with-lease"\)$/) },
      { target: '/timeout', original: 600, updated: 60, reason: 'oracle 1' },
    ]);
    // Without the authority the same two are a conflict.
    expect(aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [rewrite, operator], now: NOW, newId: () => '99999999-9999-4999-8999-000000000001' }).allowed).toBe(false);
  });

  it('keeps every contributing control signal even when its modification lost', () => {
    const first = control(1, [{ target: 'max_batch', original: 25, updated: 10 }]);
    const second = control(2, [{ target: 'max_batch', original: 25, updated: 5 }]);
    const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-issue-submit', signals: [first, second], now: NOW });
    expect(decision.signals).toEqual([first, second]);
    expect(decision.modifications).toHaveLength(1);
  });

  it('keeps only the stricter of two modifications of one target within one signal', () => {
    const dup = control(1, [
      { target: 'x', original: 1, updated: 2 },
      { target: 'x', original: 1, updated: 3 },
    ]);
    const decision = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [dup], now: NOW });
    expect(decision.modifications.map((m) => m.updated)).toEqual([2]);
  });

  it('is pure: same input, same output, input untouched', () => {
    const signals = [signal('control', 1), signal('prompt', 2)];
    const snapshot = structuredClone(signals);
    const input = { hookId: HOOK_ID, trigger: 'pre-issue-submit' as const, signals, now: NOW, configVersion: 7 };
    const a = aggregateSignals(input);
    const b = aggregateSignals(input);
    expect(a).toEqual(b);
    expect(signals).toEqual(snapshot);
    expect(a.config_version).toBe(7);
    expect(a.signals).not.toBe(signals);
  });

  it('replays docs/spec/escalation-and-context.md#worked-example: blocked, then allowed with a warning, then aided', () => {
    const first = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-issue-submit', signals: [signal('block', 1)], now: NOW });
    expect(first).toMatchObject({ allowed: false, intensity: 'block', warnings: [] });
    const second = aggregateSignals({
      hookId: '22222222-2222-4222-8222-222222222222',
      trigger: 'pre-issue-submit',
      signals: [signal('prompt', 2, { header: { ...seedSignal('prompt', 2).header, source: 'change-size-limiter' } })],
      now: '2026-02-09T10:15:00Z',
    });
    expect(second).toMatchObject({ allowed: true, intensity: 'prompt', warnings: ['单次修改涉及 25 个文件，建议分步提交'] });
    const third = aggregateSignals({
      hookId: '33333333-3333-4333-8333-333333333333',
      trigger: 'post-issue-submit',
      signals: [signal('aid', 3)],
      now: '2026-02-09T10:15:01Z',
    });
    expect(third).toMatchObject({ allowed: true, intensity: 'aid' });
    for (const d of [first, second, third]) expect(HookDecisionSchema.safeParse(d).success).toBe(true);
  });
});

describe('failurePolicyDecision', () => {
  it('fail_closed denies with intensity block, no synthetic signal, and the error', () => {
    const decision = failurePolicyDecision({
      hookId: HOOK_ID,
      trigger: 'pre-tool-use',
      policy: 'fail_closed',
      code: 'E_TIMEOUT',
      message: 'no oracle answered within 5000 ms',
      now: NOW,
      configVersion: 3,
    });
    expect(decision).toEqual({
      hook_id: HOOK_ID,
      trigger: 'pre-tool-use',
      allowed: false,
      intensity: 'block',
      signals: [],
      modifications: [],
      warnings: [],
      decided_by: 'failure_policy',
      error: { code: 'E_TIMEOUT', message: 'no oracle answered within 5000 ms' },
      config_version: 3,
      decided_at: NOW,
    });
    expect(HookDecisionSchema.parse(decision)).toEqual(decision);
  });

  it('fail_open allows with intensity null and the error', () => {
    const decision = failurePolicyDecision({
      hookId: HOOK_ID,
      trigger: 'post-tool-use',
      policy: 'fail_open',
      code: 'E_TIMEOUT',
      message: 'timeout',
      now: NOW,
    });
    expect(decision).toMatchObject({ allowed: true, intensity: null, decided_by: 'failure_policy', error: { code: 'E_TIMEOUT' } });
    expect(decision).not.toHaveProperty('config_version');
    expect(HookDecisionSchema.safeParse(decision).success).toBe(true);
  });
});

describe('HookDecisionSchema invariants', () => {
  const blocked = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [signal('block', 1)], now: NOW });

  it('allowed must be false exactly when the intensity is block', () => {
    expect(issues(HookDecisionSchema, { ...blocked, allowed: true })[0]).toMatchObject({
      path: ['allowed'],
      message: 'a blocked decision cannot be allowed',
    });
    const open = aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals: [], now: NOW });
    expect(issues(HookDecisionSchema, { ...open, allowed: false })[0]).toMatchObject({ path: ['allowed'] });
  });

  it('the intensity of an oracle decision is the strongest signal intensity', () => {
    expect(issues(HookDecisionSchema, { ...blocked, intensity: 'control', allowed: true })[0]).toMatchObject({
      path: ['intensity'],
      message: 'intensity must be the strongest signal intensity (block)',
    });
  });

  it('a failure-policy decision has an error and no signals', () => {
    const closed = failurePolicyDecision({
      hookId: HOOK_ID,
      trigger: 'pre-tool-use',
      policy: 'fail_closed',
      code: 'E_TIMEOUT',
      message: 't',
      now: NOW,
    });
    const { error: _e, ...noError } = closed;
    expect(issues(HookDecisionSchema, noError)[0]).toMatchObject({ path: ['error'] });
    expect(issues(HookDecisionSchema, { ...closed, signals: blocked.signals })[0]).toMatchObject({ path: ['signals'] });
    expect(issues(HookDecisionSchema, { ...closed, error: { code: 'timeout', message: 't' } })[0]).toMatchObject({
      path: ['error', 'code'],
    });
  });

  it('rejects a non-uuid hook id, an unknown trigger, a fractional config version, extra keys', () => {
    expect(issues(HookDecisionSchema, { ...blocked, hook_id: 'h1' })[0]).toMatchObject({ path: ['hook_id'] });
    expect(issues(HookDecisionSchema, { ...blocked, trigger: 'pre-deploy' })[0]).toMatchObject({ path: ['trigger'] });
    expect(issues(HookDecisionSchema, { ...blocked, config_version: 1.5 })[0]).toMatchObject({ path: ['config_version'] });
    expect(issues(HookDecisionSchema, { ...blocked, reason: 'x' })[0]).toMatchObject({ code: 'unrecognized_keys' });
  });

  it('validates every embedded signal', () => {
    const broken = { ...blocked, signals: [{ ...blocked.signals[0], payload: seedSignal('aid').payload }] };
    expect(issues(HookDecisionSchema, broken)[0]).toMatchObject({ path: ['signals', 0, 'payload', 'level'] });
  });
});
