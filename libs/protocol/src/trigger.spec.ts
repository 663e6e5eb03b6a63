import { describe, expect, it } from 'vitest';
import { INTENSITIES } from './intensity.js';
import {
  DOMAIN_TRIGGERS,
  FailurePolicySchema,
  HOOK_TRIGGERS,
  HookTriggerSchema,
  LIFECYCLE_TRIGGERS,
  TRIGGERS,
  allowedIntensities,
  defaultFailurePolicy,
  isIntensityAllowed,
  triggerPhase,
} from './trigger.js';

describe('HookTriggerSchema', () => {
  it('knows the eight domain triggers of docs/spec/hooks-and-oracles.md#triggers and six lifecycle triggers', () => {
    expect(DOMAIN_TRIGGERS).toHaveLength(8);
    expect(LIFECYCLE_TRIGGERS).toEqual(['session-start', 'session-end', 'user-prompt-submit', 'stop', 'task-complete', 'pre-compact', 'post-compact']);
    expect(HOOK_TRIGGERS).toEqual([...DOMAIN_TRIGGERS, ...LIFECYCLE_TRIGGERS]);
    for (const t of HOOK_TRIGGERS) expect(HookTriggerSchema.parse(t)).toBe(t);
  });

  it('rejects unknown or differently spelled triggers', () => {
    for (const bad of ['pre_tool_use', 'PreToolUse', 'pre-tool', 'post_compact', '']) {
      expect(HookTriggerSchema.safeParse(bad).error?.issues[0]?.code).toBe('invalid_value');
    }
  });
});

describe('TRIGGERS table', () => {
  it('copies the trigger table of docs/spec/hooks-and-oracles.md#triggers exactly for the domain triggers', () => {
    const seed = {
      'pre-issue-start': [['block', 'control'], 'dependency-check'],
      'post-issue-start': [['aid'], 'context-loaded'],
      'pre-tool-use': [['block', 'control'], 'permission-check'],
      'post-tool-use': [['aid'], 'result-analysis'],
      'pre-issue-submit': [['block', 'control', 'prompt'], 'quality-gate'],
      'post-issue-submit': [['aid'], 'review-triggered'],
      'pre-issue-close': [['block'], 'completion-verify'],
      'post-issue-close': [['aid'], 'retrospective'],
    } as const;
    for (const [trigger, [allowed, typical]] of Object.entries(seed)) {
      const entry = TRIGGERS[trigger as keyof typeof seed];
      expect(entry.allowed, trigger).toEqual(allowed);
      expect(entry.typicalSignal, trigger).toBe(typical);
      expect(entry.phase, trigger).toBe(trigger.startsWith('pre-') ? 'pre' : 'post');
    }
  });

  it('uses the documented intensities for lifecycle triggers', () => {
    expect(allowedIntensities('session-start')).toEqual(['prompt', 'aid']);
    expect(allowedIntensities('session-end')).toEqual(['aid']);
    expect(allowedIntensities('task-complete')).toEqual(['aid']);
    expect(allowedIntensities('user-prompt-submit')).toEqual(['block', 'control', 'prompt']);
    expect(allowedIntensities('stop')).toEqual(['block', 'prompt']);
    expect(allowedIntensities('pre-compact')).toEqual(['block', 'prompt']);
    for (const t of LIFECYCLE_TRIGGERS) expect(triggerPhase(t)).toBe('lifecycle');
  });

  it('lists allowed intensities strongest first, without duplicates', () => {
    for (const t of HOOK_TRIGGERS) {
      const allowed = allowedIntensities(t);
      expect(allowed.length).toBeGreaterThan(0);
      expect([...allowed].sort((a, b) => INTENSITIES.indexOf(a) - INTENSITIES.indexOf(b))).toEqual(allowed);
      expect(new Set(allowed).size).toBe(allowed.length);
    }
  });

  it('only pre and lifecycle triggers may block; post triggers only aid', () => {
    for (const t of HOOK_TRIGGERS) {
      if (triggerPhase(t) === 'post') expect(allowedIntensities(t)).toEqual(['aid']);
    }
  });

  it('is frozen so no consumer can widen a trigger at run time', () => {
    expect(Object.isFrozen(TRIGGERS)).toBe(true);
    expect(Object.isFrozen(TRIGGERS['pre-tool-use'])).toBe(true);
    expect(Object.isFrozen(TRIGGERS['pre-tool-use'].allowed)).toBe(true);
    expect(() => (TRIGGERS['pre-tool-use'].allowed as string[]).push('aid')).toThrow(TypeError);
  });
});

describe('isIntensityAllowed', () => {
  it('follows the table', () => {
    expect(isIntensityAllowed('pre-issue-submit', 'prompt')).toBe(true);
    expect(isIntensityAllowed('pre-tool-use', 'prompt')).toBe(false);
    expect(isIntensityAllowed('pre-issue-close', 'control')).toBe(false);
    expect(isIntensityAllowed('post-tool-use', 'block')).toBe(false);
    expect(isIntensityAllowed('post-tool-use', 'aid')).toBe(true);
  });
});

describe('failure policies', () => {
  it('fail closed for every pre-* trigger and open everywhere else', () => {
    const closed = HOOK_TRIGGERS.filter((t) => defaultFailurePolicy(t) === 'fail_closed');
    expect(closed).toEqual(['pre-issue-start', 'pre-tool-use', 'pre-issue-submit', 'pre-issue-close', 'pre-compact']);
    expect(closed).toEqual(HOOK_TRIGGERS.filter((t) => t.startsWith('pre-')));
    expect(defaultFailurePolicy('pre-compact')).toBe('fail_closed');
    expect(defaultFailurePolicy('user-prompt-submit')).toBe('fail_open');
  });

  it('FailurePolicySchema accepts only the two policies', () => {
    expect(FailurePolicySchema.parse('fail_open')).toBe('fail_open');
    expect(FailurePolicySchema.safeParse('fail-open').error?.issues[0]?.code).toBe('invalid_value');
  });
});
