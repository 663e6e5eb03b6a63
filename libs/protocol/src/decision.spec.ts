import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  AidSuggestionSchema,
  AidingDecisionSchema,
  BlockingDecisionSchema,
  ControllingDecisionSchema,
  ModificationSchema,
  ModificationTargetSchema,
  PromptingDecisionSchema,
  SignalPayloadSchema,
} from './decision.js';
import { LIMITS } from './primitives.js';
import { SEED_AIDING, SEED_BLOCKING, SEED_CONTROLLING, SEED_PROMPTING } from '../test/fixtures/domain-seeds.js';

function issues(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  return result.error?.issues ?? [];
}

describe('the design examples of docs/spec/spectrum-and-signals.md#decision-structures', () => {
  it.each([
    ['blocking', BlockingDecisionSchema, SEED_BLOCKING],
    ['controlling', ControllingDecisionSchema, SEED_CONTROLLING],
    ['prompting', PromptingDecisionSchema, SEED_PROMPTING],
    ['aiding', AidingDecisionSchema, SEED_AIDING],
  ] as const)('the %s example parses, unchanged, with its own schema and as a SignalPayload', (_name, schema, example) => {
    expect(schema.parse(example)).toEqual(example);
    expect(SignalPayloadSchema.parse(example)).toEqual(example);
  });
});

describe('BlockingDecisionSchema', () => {
  it('requires every field of the design example', () => {
    const { resolvable: _r, ...rest } = SEED_BLOCKING;
    expect(issues(BlockingDecisionSchema, rest)).toEqual([
      expect.objectContaining({ code: 'invalid_type', path: ['resolvable'] }),
    ]);
  });

  it('pins decision to deny', () => {
    expect(issues(BlockingDecisionSchema, { ...SEED_BLOCKING, decision: 'allow' })[0]).toMatchObject({
      code: 'invalid_value',
      path: ['decision'],
    });
  });

  it('rejects an empty reason and unknown keys', () => {
    expect(issues(BlockingDecisionSchema, { ...SEED_BLOCKING, reason: '' })[0]).toMatchObject({ code: 'too_small', path: ['reason'] });
    expect(issues(BlockingDecisionSchema, { ...SEED_BLOCKING, severity: 'high' })[0]).toMatchObject({
      code: 'unrecognized_keys',
      keys: ['severity'],
    });
  });

  it('rejects a huge reason and an unbounded resolution path', () => {
    expect(issues(BlockingDecisionSchema, { ...SEED_BLOCKING, reason: 'x'.repeat(LIMITS.maxText + 1) })[0]).toMatchObject({
      code: 'too_big',
      path: ['reason'],
    });
    const path = Array.from({ length: LIMITS.maxArrayLength + 1 }, () => 'step');
    expect(issues(BlockingDecisionSchema, { ...SEED_BLOCKING, resolution_path: path })[0]).toMatchObject({
      code: 'too_big',
      path: ['resolution_path'],
    });
  });
});

describe('ModificationSchema / ControllingDecisionSchema', () => {
  it('accepts any JSON for original and updated, including null and objects', () => {
    const m = { target: 'sandbox', original: null, updated: { network: false, paths: ['/tmp'] }, reason: '沙箱限制' };
    expect(ModificationSchema.parse(m)).toEqual(m);
  });

  it('requires original and updated to be present (null is a value, absence is not)', () => {
    const found = issues(ModificationSchema, { target: 'batch_size', reason: 'r' });
    expect(found.map((i) => i.path)).toEqual([['original'], ['updated']]);
  });

  it('rejects __proto__ smuggled inside a JSON value, at its path', () => {
    const m = JSON.parse('{"target":"t","original":1,"updated":{"a":{"__proto__":{"polluted":true}}},"reason":"r"}');
    expect(issues(ModificationSchema, m)[0]).toMatchObject({ path: ['updated', 'a', '__proto__'], message: expect.stringContaining('__proto__') });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('requires at least one modification', () => {
    expect(issues(ControllingDecisionSchema, { ...SEED_CONTROLLING, modifications: [] })[0]).toMatchObject({
      code: 'too_small',
      path: ['modifications'],
    });
  });

  it('reports errors inside a modification at its index', () => {
    const bad = { ...SEED_CONTROLLING, modifications: [SEED_CONTROLLING.modifications[0], { target: 'x', original: 1, updated: 2 }] };
    expect(issues(ControllingDecisionSchema, bad)[0]).toMatchObject({ path: ['modifications', 1, 'reason'] });
  });
});

describe('PromptingDecisionSchema', () => {
  it('accepts every severity and rejects others', () => {
    for (const severity of ['low', 'medium', 'high', 'critical']) {
      expect(PromptingDecisionSchema.parse({ ...SEED_PROMPTING, severity }).severity).toBe(severity);
    }
    expect(issues(PromptingDecisionSchema, { ...SEED_PROMPTING, severity: 'urgent' })[0]).toMatchObject({
      code: 'invalid_value',
      path: ['severity'],
    });
  });

  it('needs continue_allowed as a boolean, not a string', () => {
    expect(issues(PromptingDecisionSchema, { ...SEED_PROMPTING, continue_allowed: 'yes' })[0]).toMatchObject({
      code: 'invalid_type',
      path: ['continue_allowed'],
    });
  });
});

describe('AidingDecisionSchema', () => {
  it('suggestions are objects with type and description, not bare strings', () => {
    expect(issues(AidingDecisionSchema, { ...SEED_AIDING, suggestions: ['建议检查测试覆盖率'] })[0]).toMatchObject({
      code: 'invalid_type',
      path: ['suggestions', 0],
    });
  });

  it('accepts unknown suggestion categories but not extra nesting', () => {
    expect(AidSuggestionSchema.parse({ type: 'knowledge', description: 'd' }).type).toBe('knowledge');
    expect(issues(AidSuggestionSchema, { type: 't', description: 'd', meta: { x: 1 } })[0]).toMatchObject({
      code: 'unrecognized_keys',
    });
  });
});

describe('SignalPayloadSchema', () => {
  it('discriminates on level and names the valid levels', () => {
    const [issue] = issues(SignalPayloadSchema, { ...SEED_BLOCKING, level: 'deny' });
    expect(issue).toMatchObject({ code: 'invalid_union', path: ['level'] });
    expect(issue?.message).toContain('blocking');
  });

  it('validates against the schema of the declared level', () => {
    const [issue] = issues(SignalPayloadSchema, { ...SEED_AIDING, level: 'prompting' });
    expect(issue?.path).not.toEqual(['level']);
    expect(SignalPayloadSchema.parse(SEED_PROMPTING).level).toBe('prompting');
  });

  it('rejects a payload wrapped in an extra object', () => {
    expect(issues(SignalPayloadSchema, { payload: SEED_BLOCKING })[0]).toMatchObject({ path: ['level'] });
  });
});

describe('ModificationTargetSchema', () => {
  it('takes keys and dotted paths of keys', () => {
    for (const target of ['command', 'options.depth', 'tool.input.command', 'batch_size']) expect(ModificationTargetSchema.safeParse(target).success).toBe(true);
  });

  it('refuses empty segments and prototype names, which would write somewhere other than a field', () => {
    for (const target of ['', '.x', 'a..b', 'a.', '__proto__', 'a.__proto__.b', 'constructor.prototype', 'x.prototype']) {
      expect(ModificationTargetSchema.safeParse(target).success, target).toBe(false);
    }
  });
});
