import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SEED_BLOCKING, seedSignal } from '../test/fixtures/domain-seeds.js';
import { LIMITS } from './primitives.js';
import { SIGNAL_TYPES, SignalHeaderSchema, SignalSchema, SignalTypeSchema, signalCategory } from './signal.js';
import { HOOK_TRIGGERS, TRIGGERS } from './trigger.js';

function issues(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  return result.error?.issues ?? [];
}

describe('SignalSchema', () => {
  it.each(['block', 'control', 'prompt', 'aid'] as const)('parses a %s signal around the design example payload (seedSignal), unchanged', (i) => {
    const signal = seedSignal(i);
    expect(SignalSchema.parse(signal)).toEqual(signal);
  });

  it('rejects a header intensity that contradicts the payload level, at payload.level', () => {
    const signal = { ...seedSignal('aid'), payload: SEED_BLOCKING };
    expect(issues(SignalSchema, signal)).toEqual([
      expect.objectContaining({
        code: 'custom',
        path: ['payload', 'level'],
        message: 'payload level "blocking" does not match header intensity "aid" (expected "aiding")',
      }),
    ]);
  });

  it('requires header, context and payload, and nothing else', () => {
    const { context: _c, ...noContext } = seedSignal('block');
    expect(issues(SignalSchema, noContext)[0]).toMatchObject({ path: ['context'] });
    expect(issues(SignalSchema, { ...seedSignal('block'), extra: 1 })[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['extra'] });
  });

  it('context must be a JSON object without prototype keys', () => {
    expect(issues(SignalSchema, { ...seedSignal('block'), context: [1, 2] })[0]).toMatchObject({ path: ['context'] });
    const polluted = JSON.parse('{"files":{"constructor":{"prototype":{}}}}');
    expect(issues(SignalSchema, { ...seedSignal('block'), context: polluted })[0]).toMatchObject({
      path: ['context', 'files', 'constructor'],
    });
  });

  it('rejects a context nested deeper than the limit', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < LIMITS.maxJsonDepth + 5; i++) {
      const next = {};
      deep['d'] = next;
      deep = next;
    }
    expect(issues(SignalSchema, { ...seedSignal('aid'), context: root })[0]?.message).toContain('nested deeper');
  });
});

describe('SignalHeaderSchema', () => {
  const header = seedSignal('block').header;

  it('needs a UUID id and an ISO 8601 timestamp with zone', () => {
    expect(issues(SignalHeaderSchema, { ...header, id: 'sig-1' })[0]).toMatchObject({ path: ['id'], format: 'uuid' });
    expect(issues(SignalHeaderSchema, { ...header, timestamp: '2026-02-09 10:00' })[0]).toMatchObject({
      path: ['timestamp'],
      format: 'datetime',
    });
    expect(SignalHeaderSchema.parse({ ...header, timestamp: '2026-02-09T18:00:00+08:00' }).timestamp).toBe(
      '2026-02-09T18:00:00+08:00',
    );
  });

  it('correlation_id is optional', () => {
    const { correlation_id: _c, ...rest } = header;
    expect(SignalHeaderSchema.parse(rest)).toEqual(rest);
  });

  it('rejects intensity spelled as a level', () => {
    expect(issues(SignalHeaderSchema, { ...header, intensity: 'blocking' })[0]).toMatchObject({
      code: 'invalid_value',
      path: ['intensity'],
    });
  });

  it('rejects a huge source', () => {
    expect(issues(SignalHeaderSchema, { ...header, source: 'x'.repeat(LIMITS.maxShortString + 1) })[0]).toMatchObject({
      code: 'too_big',
      path: ['source'],
    });
  });
});

describe('signal types', () => {
  it('are lowercase kebab-case', () => {
    for (const ok of ['quality-gate', 'pre-issue-submit', 'stop', 'check2-v3']) expect(SignalTypeSchema.parse(ok)).toBe(ok);
    for (const bad of ['Quality-Gate', 'quality_gate', '-gate', 'gate-', 'a--b', '2fa', '', 'a b']) {
      expect(SignalTypeSchema.safeParse(bad).success, bad).toBe(false);
    }
    expect(SignalTypeSchema.safeParse('quality_gate').error?.issues[0]?.message).toContain('kebab-case');
  });

  it('categorise the catalog: lifecycle, domain (hook triggers), policy', () => {
    expect(signalCategory('session-start')).toBe('lifecycle');
    expect(signalCategory('task-complete')).toBe('lifecycle');
    expect(signalCategory('pre-issue-start')).toBe('domain');
    expect(signalCategory('post-issue-submit')).toBe('domain');
    expect(signalCategory('pre-tool-use')).toBe('domain');
    expect(signalCategory('security-violation')).toBe('policy');
    expect(signalCategory('quality-threshold')).toBe('policy');
  });

  it('categorise unknown types as policy (user-written rules)', () => {
    expect(signalCategory('my-team-rule')).toBe('policy');
    expect(signalCategory('constructor')).toBe('policy');
  });

  it('every hook trigger is a catalogued lifecycle or domain type, every catalogued name is valid', () => {
    for (const t of HOOK_TRIGGERS) expect(['lifecycle', 'domain']).toContain(signalCategory(t));
    const all = [...SIGNAL_TYPES.lifecycle, ...SIGNAL_TYPES.domain, ...SIGNAL_TYPES.policy];
    expect(new Set(all).size).toBe(all.length);
    for (const t of all) expect(SignalTypeSchema.safeParse(t).success, t).toBe(true);
  });

  it("every trigger's typical signal is a catalogued policy type", () => {
    for (const t of HOOK_TRIGGERS) expect(SIGNAL_TYPES.policy, t).toContain(TRIGGERS[t].typicalSignal);
  });
});
