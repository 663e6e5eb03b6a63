import { describe, expect, it } from 'vitest';
import { HooksConfigSchema, answerGraceMs, DEFAULT_ANSWER_GRACE_MS } from './hooks-config.js';
import { matchesToolPattern, planGatePolicy, TeamPoliciesSchema } from './team-policy.js';

describe('matchesToolPattern', () => {
  it('matches names exactly, with * standing for any run of characters', () => {
    expect(matchesToolPattern(['read'], 'read')).toBe(true);
    expect(matchesToolPattern(['read'], 'reader')).toBe(false);
    expect(matchesToolPattern(['read'], 'READ')).toBe(false);
    expect(matchesToolPattern(['fs.read*'], 'fs.read_file')).toBe(true);
    expect(matchesToolPattern(['fs.read*'], 'fs.write')).toBe(false);
    expect(matchesToolPattern(['*_search'], 'code_search')).toBe(true);
    expect(matchesToolPattern(['a*b*c'], 'abc')).toBe(true);
    expect(matchesToolPattern(['a*b*c'], 'axxbyyc')).toBe(true);
    expect(matchesToolPattern(['a*b*c'], 'acb')).toBe(false);
    expect(matchesToolPattern(['ab*ba'], 'aba')).toBe(false);
    expect(matchesToolPattern(['*'], 'anything')).toBe(true);
    expect(matchesToolPattern([], 'read')).toBe(false);
  });

  it('treats regular-expression characters as plain text', () => {
    expect(matchesToolPattern(['fs.read'], 'fsXread')).toBe(false);
    expect(matchesToolPattern(['(.*)'], 'anything')).toBe(false);
  });
});

describe('planGatePolicy', () => {
  const teams = TeamPoliciesSchema.parse({ '*': { planning_tools: ['read'] }, payments: { require_plan: true, planning_tools: ['grep'] } });

  it("takes the agent's team entry, else the * entry, else the default", () => {
    expect(planGatePolicy(teams, { team: 'payments', role: 'teammate' })).toEqual({ requirePlan: true, planningTools: ['grep'] });
    expect(planGatePolicy(teams, { team: 'orders', role: 'teammate' })).toEqual({ requirePlan: false, planningTools: ['read'] });
    expect(planGatePolicy(teams, {})).toEqual({ requirePlan: false, planningTools: ['read'] });
    expect(planGatePolicy(undefined, { team: 'payments', role: 'teammate' })).toEqual({ requirePlan: false, planningTools: [] });
  });

  it('requires a plan of teammates only: a lead or an agent without a role reviews plans', () => {
    expect(planGatePolicy(teams, { team: 'payments', role: 'lead' }).requirePlan).toBe(false);
    expect(planGatePolicy(teams, { team: 'payments' }).requirePlan).toBe(false);
  });
});

describe('hooks configuration: teams and answer_grace', () => {
  it('accepts team policies and a per-trigger answer grace', () => {
    const config = HooksConfigSchema.parse({
      hooks: { 'pre-tool-use': { answer_grace: '10s', oracles: [] } },
      teams: { '*': { planning_tools: ['read', 'fs.read*'] }, payments: { require_plan: true } },
    });
    expect(answerGraceMs(config, 'pre-tool-use')).toBe(10_000);
    expect(answerGraceMs(config, 'pre-issue-submit')).toBe(DEFAULT_ANSWER_GRACE_MS);
    expect(answerGraceMs(undefined, 'pre-tool-use')).toBe(DEFAULT_ANSWER_GRACE_MS);
  });

  it('refuses an answer grace where nothing must be answered, a bad team key, unknown fields and spaced patterns', () => {
    const issues = (value: unknown) => {
      const result = HooksConfigSchema.safeParse(value);
      return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    };
    expect(issues({ hooks: { 'post-tool-use': { answer_grace: '10s', oracles: [] } } })).toEqual([
      'hooks.post-tool-use.answer_grace: has no effect: post-tool-use never sends block or control, the signals an agent must answer',
    ]);
    expect(issues({ hooks: {}, teams: { 'bad team': {} } }).length).toBe(1);
    expect(issues({ hooks: {}, teams: { red: { require_plans: true } } }).length).toBe(1);
    expect(issues({ hooks: {}, teams: { red: { planning_tools: ['rm -rf'] } } }).length).toBe(1);
  });
});
