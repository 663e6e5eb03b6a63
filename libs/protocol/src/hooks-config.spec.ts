import { describe, expect, it } from 'vitest';
import {
  HOOK_ORACLE_NAME_PATTERN,
  HookDurationSchema,
  HooksConfigSchema,
  durationToMs,
  escalationSteps,
  type HooksConfig,
} from './hooks-config.js';

/** The original design's example configuration (docs/spec/hooks-and-oracles.md#rules), verbatim (as YAML parses it). */
const SEED_4_3 = {
  hooks: {
    'pre-issue-submit': {
      trigger: 'pre-issue-submit',
      oracles: [
        {
          name: 'checklist-validator',
          rules: [
            { condition: 'checklist.incomplete_count > 0', intensity: 'block', message: 'Checklist 未完成' },
            {
              condition: 'checklist.incomplete_count > 0 and checklist.completion_rate > 0.8',
              intensity: 'prompt',
              message: '大部分已完成，确认提交？',
            },
          ],
        },
        {
          name: 'change-size-limiter',
          rules: [
            {
              condition: 'files.changed_count > 20',
              intensity: 'control',
              action: { type: 'split_suggestion', max_batch: 10 },
            },
          ],
        },
        {
          name: 'test-gate',
          rules: [
            { condition: 'tests.failed_count > 0', intensity: 'block', message: '测试未通过' },
            { condition: 'coverage.current < coverage.threshold', intensity: 'prompt', message: '覆盖率低于阈值' },
          ],
        },
      ],
    },
  },
};

function withRule(trigger: string, rule: Record<string, unknown>, oracle: Record<string, unknown> = {}): unknown {
  return { hooks: { [trigger]: { oracles: [{ name: 'r', rules: [rule], ...oracle }] } } };
}

function problems(input: unknown): { path: string; message: string }[] {
  const result = HooksConfigSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

describe('HooksConfigSchema', () => {
  it('accepts the original design example configuration as written and returns it unchanged', () => {
    const parsed: HooksConfig = HooksConfigSchema.parse(SEED_4_3);
    expect(parsed).toEqual(SEED_4_3);
    // Stored configurations are parsed again by workers: the result must be a fixed point.
    expect(HooksConfigSchema.parse(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
  });

  it('accepts an empty hooks map and an empty hook', () => {
    expect(problems({ hooks: {} })).toEqual([]);
    expect(problems({ hooks: { 'pre-tool-use': { oracles: [] } } })).toEqual([]);
  });

  it('rejects unknown triggers, naming the key', () => {
    const result = HooksConfigSchema.safeParse({ hooks: { 'pre-deploy': { oracles: [] } } });
    expect(result.success).toBe(false);
    const issue = result.error!.issues[0]!;
    expect(issue.path).toEqual(['hooks', 'pre-deploy']);
    expect(issue.message).toMatch(/^unknown trigger "pre-deploy" \(known: pre-issue-start, /);
    expect((issue as { params?: unknown }).params).toEqual({ at: 'key' });
  });

  it('rejects a trigger field that disagrees with its key', () => {
    expect(problems({ hooks: { 'pre-tool-use': { trigger: 'post-tool-use', oracles: [] } } })).toEqual([
      { path: 'hooks.pre-tool-use.trigger', message: 'must be "pre-tool-use", the key of this hook (or be left out)' },
    ]);
  });

  it('rejects unknown fields everywhere (strict objects)', () => {
    expect(problems({ hooks: {}, extra: 1 })[0]?.message).toMatch(/Unrecognized key/);
    expect(problems(withRule('pre-issue-submit', { condition: 'a', intensity: 'block', severty: 'high' }))[0]?.path).toBe(
      'hooks.pre-issue-submit.oracles.0.rules.0',
    );
  });

  it('rejects an unknown intensity', () => {
    const found = problems(withRule('pre-issue-submit', { condition: 'a', intensity: 'warn' }));
    expect(found[0]?.path).toBe('hooks.pre-issue-submit.oracles.0.rules.0.intensity');
  });

  it('rejects an intensity the trigger does not allow (docs/spec/hooks-and-oracles.md#triggers)', () => {
    expect(problems(withRule('pre-tool-use', { condition: 'a', intensity: 'prompt', message: 'm' }))).toEqual([
      {
        path: 'hooks.pre-tool-use.oracles.0.rules.0.intensity',
        message: 'intensity "prompt" is not allowed at pre-tool-use (allowed: block, control)',
      },
    ]);
    expect(problems(withRule('post-issue-submit', { condition: 'a', intensity: 'block' }))[0]?.message).toBe(
      'intensity "block" is not allowed at post-issue-submit (allowed: aid)',
    );
    expect(problems(withRule('pre-issue-close', { condition: 'a', intensity: 'block' }))).toEqual([]);
  });

  it('checks every escalation step against the trigger, in both spellings', () => {
    expect(problems(withRule('pre-tool-use', { condition: 'a', escalation: ['prompt', 'block'] }))).toEqual([
      {
        path: 'hooks.pre-tool-use.oracles.0.rules.0.escalation.0',
        message: 'intensity "prompt" is not allowed at pre-tool-use (allowed: block, control)',
      },
    ]);
    expect(
      problems(withRule('pre-tool-use', { condition: 'a', escalation: { steps: ['block', 'prompt'], ttl: '1h' } }))[0]?.path,
    ).toBe('hooks.pre-tool-use.oracles.0.rules.0.escalation.steps.1');
  });

  it('accepts the ladder of docs/spec/escalation-and-context.md#progressive-intervention and refuses one that weakens', () => {
    const ladder = { condition: 'a', escalation: ['prompt', 'control', 'block'], action: { type: 'split_suggestion', max_batch: 10 } };
    expect(problems(withRule('pre-issue-submit', ladder))).toEqual([]);
    expect(problems(withRule('pre-issue-submit', { condition: 'a', escalation: ['block', 'prompt'] }))).toEqual([
      {
        path: 'hooks.pre-issue-submit.oracles.0.rules.0.escalation.1',
        message: 'an escalation never weakens: "prompt" after "block" (order: block ≺ control ≺ prompt ≺ aid)',
      },
    ]);
    expect(problems(withRule('pre-issue-submit', { condition: 'a', escalation: ['prompt'] }))[0]?.path).toBe(
      'hooks.pre-issue-submit.oracles.0.rules.0.escalation',
    );
  });

  it('requires exactly one of intensity and escalation', () => {
    expect(problems(withRule('pre-issue-submit', { condition: 'a' }))[0]).toEqual({
      path: 'hooks.pre-issue-submit.oracles.0.rules.0.intensity',
      message: 'missing: every rule needs "intensity" (one of block, control, prompt, aid) or an "escalation" ladder',
    });
    expect(problems(withRule('pre-issue-submit', { condition: 'a', intensity: 'block', escalation: ['prompt', 'block'] }))[0]?.message).toBe(
      'a rule has either "intensity" or "escalation", not both',
    );
  });

  it('requires an action where control is reachable, and refuses a dead action', () => {
    expect(problems(withRule('pre-issue-submit', { condition: 'a', intensity: 'control' }))[0]?.path).toBe(
      'hooks.pre-issue-submit.oracles.0.rules.0.action',
    );
    expect(
      problems(withRule('pre-issue-submit', { condition: 'a', intensity: 'prompt', action: { type: 'split_suggestion', max_batch: 3 } }))[0]
        ?.message,
    ).toMatch(/^has no effect/);
    // The base rule never controls, but an override does and inherits the action: fine.
    expect(
      problems(
        withRule('pre-issue-submit', {
          condition: 'a',
          intensity: 'prompt',
          action: { type: 'set', target: 'batch_size', value: 100 },
          overrides: [{ when: 'env == "production"', intensity: 'control' }],
        }),
      ),
    ).toEqual([]);
    expect(
      problems(
        withRule('pre-issue-submit', {
          condition: 'a',
          intensity: 'prompt',
          overrides: [{ when: 'env == "production"', intensity: 'control' }],
        }),
      )[0]?.path,
    ).toBe('hooks.pre-issue-submit.oracles.0.rules.0.overrides.0.action');
  });

  it('checks override intensities against the trigger', () => {
    expect(
      problems(withRule('pre-tool-use', { condition: 'a', intensity: 'block', overrides: [{ when: 'true', intensity: 'aid' }] })),
    ).toEqual([
      {
        path: 'hooks.pre-tool-use.oracles.0.rules.0.overrides.0.intensity',
        message: 'intensity "aid" is not allowed at pre-tool-use (allowed: block, control)',
      },
    ]);
  });

  it('allows fail_closed only where the trigger may block', () => {
    expect(problems({ hooks: { 'pre-tool-use': { failure_policy: 'fail_closed', oracles: [] } } })).toEqual([]);
    expect(problems({ hooks: { 'post-tool-use': { failure_policy: 'fail_closed', oracles: [] } } })[0]?.path).toBe(
      'hooks.post-tool-use.failure_policy',
    );
    expect(
      problems({ hooks: { 'session-start': { oracles: [{ name: 'x', failure_policy: 'fail_closed' }] } } })[0]?.path,
    ).toBe('hooks.session-start.oracles.0.failure_policy');
  });

  it('requires unique oracle names per hook and unique rule ids per oracle', () => {
    expect(problems({ hooks: { 'pre-tool-use': { oracles: [{ name: 'a' }, { name: 'a' }] } } })[0]?.path).toBe(
      'hooks.pre-tool-use.oracles.1.name',
    );
    const rule = { id: 'same', condition: 'x', intensity: 'block' };
    expect(problems({ hooks: { 'pre-tool-use': { oracles: [{ name: 'a', rules: [rule, rule] }] } } })[0]?.path).toBe(
      'hooks.pre-tool-use.oracles.0.rules.1.id',
    );
  });

  it('validates names, ids, budgets, params and options', () => {
    expect(problems({ hooks: { 'pre-tool-use': { oracles: [{ name: 'Bad Name' }] } } })[0]?.path).toBe('hooks.pre-tool-use.oracles.0.name');
    expect(problems(withRule('pre-tool-use', { id: 'Upper', condition: 'x', intensity: 'block' }))[0]?.path).toBe(
      'hooks.pre-tool-use.oracles.0.rules.0.id',
    );
    expect(problems({ hooks: { 'pre-tool-use': { budget_ms: 0, oracles: [] } } })[0]?.path).toBe('hooks.pre-tool-use.budget_ms');
    expect(problems({ hooks: { 'pre-tool-use': { budget_ms: 60_001, oracles: [] } } })).toHaveLength(1);
    expect(problems(withRule('pre-tool-use', { condition: 'x', intensity: 'block', params: [1] }))[0]?.path).toBe(
      'hooks.pre-tool-use.oracles.0.rules.0.params',
    );
    const smuggled = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    expect(problems({ hooks: { 'pre-tool-use': { oracles: [{ name: 'a', options: smuggled }] } } })[0]?.path).toBe(
      'hooks.pre-tool-use.oracles.0.options.__proto__',
    );
    expect(problems(withRule('pre-tool-use', { condition: '', intensity: 'block' }))[0]?.message).toBe('must not be empty');
  });

  it('validates action shapes', () => {
    const bad = withRule('pre-issue-submit', { condition: 'x', intensity: 'control', action: { type: 'split_suggestion', max_batch: '10' } });
    expect(problems(bad)[0]?.path).toBe('hooks.pre-issue-submit.oracles.0.rules.0.action.max_batch');
    const unknown = withRule('pre-issue-submit', { condition: 'x', intensity: 'control', action: { type: 'explode' } });
    expect(problems(unknown)[0]?.path).toBe('hooks.pre-issue-submit.oracles.0.rules.0.action.type');
  });
});

describe('durations and helpers', () => {
  it('converts durations to milliseconds', () => {
    expect(durationToMs(1500)).toBe(1500);
    expect(durationToMs('500ms')).toBe(500);
    expect(durationToMs('30s')).toBe(30_000);
    expect(durationToMs('15m')).toBe(900_000);
    expect(durationToMs('24h')).toBe(86_400_000);
    expect(durationToMs('7d')).toBe(604_800_000);
    for (const bad of ['1w', '0s', '-1s', '1.5h', '', 0, -5, 1.5, null]) expect(durationToMs(bad), String(bad)).toBeUndefined();
  });

  it('bounds durations at 30 days', () => {
    expect(HookDurationSchema.safeParse('30d').success).toBe(true);
    expect(HookDurationSchema.safeParse('31d').success).toBe(false);
    expect(HookDurationSchema.safeParse('1w').success).toBe(false);
  });

  it('reads escalation steps in both spellings', () => {
    expect(escalationSteps(['prompt', 'block'])).toEqual(['prompt', 'block']);
    expect(escalationSteps({ steps: ['control', 'block'], ttl: '1h' })).toEqual(['control', 'block']);
  });

  it('names oracles like the oracle library does', () => {
    for (const ok of ['checklist-validator', 'acme/secret-scan', 'a:b', 'x1.y_z']) expect(HOOK_ORACLE_NAME_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ['', 'Upper', '-x', 'a/', 'a b']) expect(HOOK_ORACLE_NAME_PATTERN.test(bad), bad).toBe(false);
  });
});
