import { PlanSchema } from '@ahp/protocol/wire';
import { describe, expect, it } from 'vitest';
import { MAX_PLAN_TEXT_CHARS, PLANNING_INSTRUCTIONS, parsePlanTemplate } from './plan-template.js';

const title = 'Shorten the session expiry';

describe('parsePlanTemplate', () => {
  it('reads the docs/spec/plans.md#planning-template shape into a valid plan: ids, tools, a step after the one before', () => {
    const text = [
      'Let me think about this first.',
      '**[PLAN]**',
      '1. [ ] Read the login logic in src/auth.py (tools: read_file, grep)',
      '2. [ ] Change the session expiry setting (tools: apply_patch)',
      '',
      '3. [ ] Run the tests (tools: bash)',
    ].join('\n');
    const result = parsePlanTemplate(text, { title });
    expect(result).toEqual({
      ok: true,
      plan: {
        title,
        steps: [
          { id: 'step_1', description: 'Read the login logic in src/auth.py', dependencies: [], status: 'pending', tools_expected: ['read_file', 'grep'] },
          { id: 'step_2', description: 'Change the session expiry setting', dependencies: ['step_1'], status: 'pending', tools_expected: ['apply_patch'] },
          { id: 'step_3', description: 'Run the tests', dependencies: ['step_2'], status: 'pending', tools_expected: ['bash'] },
        ],
      },
    });
    expect(result.ok && PlanSchema.parse(result.plan)).toBeTruthy();
  });

  it('takes a title from the [PLAN] line, explicit dependencies, "none", and parentheses in a description', () => {
    const text = '[PLAN] Expiry fix\n1. [ ] Read config (defaults) (tools: none)\n2. [ ] Read tests (after: none) (tools: read_file)\n3. [ ] Patch (tools: apply_patch) (after: 1, 2)';
    const result = parsePlanTemplate(text, { title, firstStepNumber: 4 });
    expect(result.ok && result.plan).toEqual({
      title: 'Expiry fix',
      steps: [
        { id: 'step_4', description: 'Read config (defaults)', dependencies: [], status: 'pending', tools_expected: [] },
        { id: 'step_5', description: 'Read tests', dependencies: [], status: 'pending', tools_expected: ['read_file'] },
        { id: 'step_6', description: 'Patch', dependencies: ['step_4', 'step_5'], status: 'pending', tools_expected: ['apply_patch'] },
      ],
    });
  });

  it.each([
    ['no [PLAN] line', '1. [ ] do it (tools: bash)', /no \[PLAN\] line/],
    ['no steps', '[PLAN]\n', /no steps/],
    ['a line that is no step', '[PLAN]\n1. [ ] do it (tools: bash)\nThat is all!', /line 3: not a step/],
    ['a checked box', '[PLAN]\n1. [x] do it (tools: bash)', /line 2: not a step/],
    ['a gap in the numbering', '[PLAN]\n1. [ ] a (tools: bash)\n3. [ ] b (tools: bash)', /step 3 where step 2 was due/],
    ['no tools annotation', '[PLAN]\n1. [ ] do it', /names no tools/],
    ['an empty description', '[PLAN]\n1. [ ] (tools: bash)', /does not say what it does/],
    ['a dependency on a missing step', '[PLAN]\n1. [ ] a (tools: bash) (after: 7)', /waits for step 7/],
    ['a step waiting for itself', '[PLAN]\n1. [ ] a (tools: bash) (after: 1)', /step 1 \(dependencies.0\): step "step_1" depends on itself/],
    ['a cycle', '[PLAN]\n1. [ ] a (tools: bash) (after: 2)\n2. [ ] b (tools: bash)', /dependency cycle/],
    ['a non-number dependency', '[PLAN]\n1. [ ] a (tools: bash) (after: first)', /is not a step number/],
    ['two plans', '[PLAN]\n1. [ ] a (tools: bash)\n[PLAN]\n1. [ ] b (tools: bash)', /a second \[PLAN\] line/],
    ['a tool name beyond the limit', `[PLAN]\n1. [ ] a (tools: ${'t'.repeat(300)})`, /step 1 \(tools_expected.0\)/],
  ])('refuses %s, saying why', (_name, text, reason) => {
    const result = parsePlanTemplate(text, { title });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.join('\n')).toMatch(reason);
  });

  it('refuses non-text and oversized input without reading it, and never reports more than 10 errors', () => {
    expect(parsePlanTemplate(undefined, { title })).toEqual({ ok: false, errors: ['the answer is not text'] });
    expect(parsePlanTemplate(`[PLAN]\n${'x'.repeat(MAX_PLAN_TEXT_CHARS)}`, { title })).toMatchObject({ ok: false, errors: [expect.stringMatching(/longer than/)] });
    const noise = `[PLAN]\n${'garbage\n'.repeat(500)}`;
    const result = parsePlanTemplate(noise, { title });
    expect(!result.ok && result.errors.length).toBe(10);
  });

  it('stays linear on hostile lines: many parentheses, long runs of markers', () => {
    const line = `1. [ ] ${'('.repeat(5_000)}${')'.repeat(5_000)} (tools: bash)`;
    expect(parsePlanTemplate(`[PLAN]\n${line}`, { title }).ok).toBe(true);
    expect(parsePlanTemplate(`${'*'.repeat(60_000)}`, { title }).ok).toBe(false);
    expect(parsePlanTemplate(`[PLAN]\n1. ${' '.repeat(60_000)}x`, { title }).ok).toBe(false);
  });

  it('the template text shows the form it parses', () => {
    expect(PLANNING_INSTRUCTIONS).toContain('[PLAN]');
    expect(PLANNING_INSTRUCTIONS).toContain('1. [ ]');
    expect(PLANNING_INSTRUCTIONS).toContain('(tools:');
  });
});
