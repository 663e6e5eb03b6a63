import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SEED_PLAN } from '../test/fixtures/domain-seeds.js';
import { PlanSchema, PlanStepSchema, PlanStepStatusSchema, findDependencyCycle, readySteps, type Plan } from './plan.js';
import { LIMITS } from './primitives.js';

function issues(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  expect(result.success).toBe(false);
  return result.error?.issues ?? [];
}

function step(id: string, dependencies: string[] = [], status = 'pending') {
  return { id, description: `do ${id}`, dependencies, status, tools_expected: [] };
}

function plan(...steps: ReturnType<typeof step>[]) {
  return { title: 't', steps };
}

describe('PlanSchema', () => {
  it('parses the design example of docs/spec/plans.md#plans unchanged', () => {
    expect(PlanSchema.parse(SEED_PLAN)).toEqual(SEED_PLAN);
  });

  it('verification_policy is optional', () => {
    const { verification_policy: _v, ...rest } = SEED_PLAN;
    expect(PlanSchema.parse(rest)).toEqual(rest);
  });

  it('needs a title and at least one step', () => {
    expect(issues(PlanSchema, { ...SEED_PLAN, title: '' })[0]).toMatchObject({ code: 'too_small', path: ['title'] });
    expect(issues(PlanSchema, { ...SEED_PLAN, steps: [] })[0]).toMatchObject({ code: 'too_small', path: ['steps'] });
  });

  it('rejects duplicate step ids at the second occurrence', () => {
    const [issue] = issues(PlanSchema, plan(step('a'), step('b'), step('a')));
    expect(issue).toMatchObject({ path: ['steps', 2, 'id'], message: 'duplicate step id "a" (also at steps[0])' });
  });

  it('rejects a dependency on an unknown step, at its index', () => {
    const [issue] = issues(PlanSchema, plan(step('a'), step('b', ['a', 'zzz'])));
    expect(issue).toMatchObject({ path: ['steps', 1, 'dependencies', 1], message: 'step "b" depends on unknown step "zzz"' });
  });

  it('rejects a self-dependency', () => {
    const [issue] = issues(PlanSchema, plan(step('a', ['a'])));
    expect(issue).toMatchObject({ path: ['steps', 0, 'dependencies', 0], message: 'step "a" depends on itself' });
  });

  it('rejects a dependency listed twice', () => {
    const [issue] = issues(PlanSchema, plan(step('a'), step('b', ['a', 'a'])));
    expect(issue).toMatchObject({ path: ['steps', 1, 'dependencies', 1] });
  });

  it('rejects a cycle and spells out its path', () => {
    const found = issues(PlanSchema, plan(step('a', ['c']), step('b', ['a']), step('c', ['b']), step('d')));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ path: ['steps', 0, 'dependencies'], message: 'dependency cycle: a → c → b → a' });
  });

  it('accepts a diamond (shared dependencies are not cycles)', () => {
    const diamond = plan(step('a'), step('b', ['a']), step('c', ['a']), step('d', ['b', 'c']));
    expect(PlanSchema.safeParse(diamond).success).toBe(true);
  });

  it('handles a maximal dependency chain without overflowing the stack', () => {
    const n = LIMITS.maxArrayLength;
    const chain = Array.from({ length: n }, (_, i) => step(`s${i}`, i === 0 ? [] : [`s${i - 1}`]));
    expect(PlanSchema.safeParse(plan(...chain)).success).toBe(true);
    chain[0] = step('s0', [`s${n - 1}`]);
    const [issue] = issues(PlanSchema, plan(...chain));
    expect(issue?.message.startsWith('dependency cycle: s0 → s999 → s998')).toBe(true);
  });

  it('rejects extra keys in a step and in the plan', () => {
    expect(issues(PlanSchema, { ...SEED_PLAN, owner: 'alice' })[0]).toMatchObject({ code: 'unrecognized_keys', path: [] });
    const steps = [{ ...SEED_PLAN.steps[0], tools: [] }];
    expect(issues(PlanSchema, { ...SEED_PLAN, steps })[0]).toMatchObject({ code: 'unrecognized_keys', path: ['steps', 0] });
  });
});

describe('PlanStepSchema', () => {
  it('accepts every status and rejects others', () => {
    for (const status of ['pending', 'in_progress', 'done', 'failed', 'skipped']) {
      expect(PlanStepStatusSchema.parse(status)).toBe(status);
    }
    expect(issues(PlanStepSchema, step('a', [], 'running'))[0]).toMatchObject({ code: 'invalid_value', path: ['status'] });
  });

  it('requires dependencies and tools_expected arrays', () => {
    const { dependencies: _d, ...rest } = step('a');
    expect(issues(PlanStepSchema, rest)[0]).toMatchObject({ code: 'invalid_type', path: ['dependencies'] });
  });

  it('rejects ids with spaces and huge descriptions', () => {
    expect(issues(PlanStepSchema, step('step 1'))[0]).toMatchObject({ path: ['id'] });
    expect(issues(PlanStepSchema, { ...step('a'), description: 'x'.repeat(LIMITS.maxText + 1) })[0]).toMatchObject({
      code: 'too_big',
      path: ['description'],
    });
  });
});

describe('findDependencyCycle', () => {
  it('returns null for a DAG and ignores unknown ids', () => {
    expect(findDependencyCycle([step('a'), step('b', ['a', 'ghost'])])).toBeNull();
  });

  it('finds a two-step cycle', () => {
    expect(findDependencyCycle([step('a', ['b']), step('b', ['a'])])).toEqual(['a', 'b', 'a']);
  });
});

describe('readySteps', () => {
  it('returns pending steps whose dependencies are done or skipped', () => {
    const p: Plan = PlanSchema.parse(
      plan(step('a', [], 'done'), step('b', ['a']), step('c', ['b']), step('d', [], 'skipped'), step('e', ['d']), step('f', ['a'], 'in_progress')),
    );
    expect(readySteps(p).map((s) => s.id)).toEqual(['b', 'e']);
  });

  it('a failed dependency keeps its dependents waiting', () => {
    const p = PlanSchema.parse(plan(step('a', [], 'failed'), step('b', ['a'])));
    expect(readySteps(p)).toEqual([]);
  });

  it('in the design example plan (SEED_PLAN) only step_1 is ready', () => {
    expect(readySteps(PlanSchema.parse(SEED_PLAN)).map((s) => s.id)).toEqual(['step_1']);
  });
});
