/**
 * The rule index changes nothing: indexed and linear evaluation of the same generated rule sets
 * give identical decisions (signals, escalation steps, overrides, fail-closed on missing fields
 * and on values of the wrong type (a number or a list where a string is read),
 * first-match order) over generated hook contexts, in the same sequence.
 */
import type { HookDecision, HookRule, HooksConfig, JsonObject } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { AGENT, deps, hookIds, hookInput, random } from '../../test/helpers.js';
import { compileHooksConfig } from '../config/compile.js';
import { AhoCorasick } from './aho-corasick.js';
import { createRuleIndex } from './rule-index.js';

const TOOLS = ['Bash', 'bash', 'BASH', 'Read', 'Edit', 'sh', 'Grep'];
const WORDS = ['git', 'push', 'rm', '-rf', 'kubectl', 'delete', 'npm', 'test', 'curl', 'sh', 'deploy', 'prod', 'x1', 'x2', 'Ab'];

function generator(start: number) {
  const next = random(start);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');

  const guard = (): string => {
    switch (Math.floor(next() * 7)) {
      case 0:
        return `tool.name == "${pick(TOOLS)}"`;
      case 1:
        return `lower(tool.name) in ["${pick(TOOLS).toLowerCase()}", "${pick(TOOLS).toLowerCase()}"]`;
      case 2:
        return `context.tool.name in ["${pick(TOOLS)}"]`;
      case 3:
        return `tool.input.command matches /\\b${pick(WORDS).replace('-', '\\-')}\\s+${pick(WORDS).replace('-', '\\-')}/`;
      case 4:
        return `tool.input.command matches /${pick(WORDS)}|${pick(WORDS)}/${next() < 0.3 ? 'i' : ''}`;
      case 5:
        return `tool.input.command matches "^${pick(WORDS)}"`;
      default:
        return `lower(tool.name) == "${pick(TOOLS).toLowerCase()}"`;
    }
  };
  const rest = (): string =>
    pick([
      'len(tool.input.command) > 8',
      'files.changed_count > 2',
      'exists(tool.input.command)',
      'default(files.changed_count, 0) >= 0',
      'tool.input.timeout > 1000',
      `tool.input.command contains "${pick(WORDS)}"`,
    ]);
  const condition = (): string => {
    const parts = Array.from({ length: Math.floor(next() * 4) }, guard);
    if (next() < 0.5) parts.push(rest());
    if (parts.length === 0) parts.push(next() < 0.5 ? 'true' : rest());
    if (next() < 0.1) return `(${parts.join(' and ')}) or files.changed_count > 5`;
    return parts.join(' and ');
  };
  const rule = (id: number): HookRule => {
    const kind = next();
    const base = { id: `r${id}`, condition: condition() };
    if (kind < 0.1) return { ...base, require_approval: { deadline: '15m' } };
    if (kind < 0.25) return { ...base, escalation: { steps: ['control', 'block'] }, action: { type: 'set', target: 'command', value: 'echo' }, message: `escalates ${id}` };
    if (kind < 0.35) return { ...base, intensity: 'block', overrides: [{ when: 'env == "production"', condition: condition() }] };
    return { ...base, intensity: next() < 0.8 ? 'block' : 'control', action: undefined as never, message: `rule ${id}: {{ tool.name }}` };
  };
  const config = (rules: number): HooksConfig => {
    const list = Array.from({ length: rules }, (_, i) => rule(i)).map((r) =>
      r.intensity === 'control' ? { ...r, action: { type: 'set' as const, target: 'command', value: 'echo' } } : Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)),
    ) as HookRule[];
    const half = Math.floor(list.length / 2);
    return {
      hooks: {
        'pre-tool-use': {
          oracles: [
            { name: 'team-rules', use: 'rules', rules: list.slice(0, half), match: next() < 0.5 ? 'first' : 'all' },
            { name: 'more-rules', use: 'rules', rules: list.slice(half), failure_policy: 'fail_open' },
          ],
        },
      },
    };
  };
  const context = (): JsonObject => {
    const tool: JsonObject = {};
    const r = next();
    if (r > 0.05) tool['name'] = r < 0.1 ? 42 : pick(TOOLS);
    const input: JsonObject = {};
    const c = next();
    if (c > 0.08) input['command'] = c < 0.12 ? 7 : c < 0.15 ? words(2).split(' ') : words(1 + Math.floor(next() * 5));
    if (next() < 0.5) input['timeout'] = Math.floor(next() * 3000);
    tool['input'] = input;
    const ctx: JsonObject = next() < 0.03 ? {} : { tool };
    if (next() < 0.4) ctx['files'] = { changed_count: Math.floor(next() * 8) };
    return ctx;
  };
  return { config, context, next };
}

async function run(config: HooksConfig, contexts: readonly JsonObject[], indexRules: boolean): Promise<HookDecision[]> {
  const compiled = compileHooksConfig(config, { version: 1, indexRules });
  const shared = deps();
  const nextHook = hookIds();
  const decisions: HookDecision[] = [];
  for (const [i, context] of contexts.entries()) {
    const agent = i % 3 === 0 ? { ...AGENT, environment: 'production' } : AGENT;
    decisions.push(await compiled.evaluate(hookInput('pre-tool-use', context, { agent, nextId: nextHook }), shared));
  }
  return decisions;
}

describe('indexed evaluation decides exactly as linear evaluation', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('generated rule set %i', async (start) => {
    const { config, context } = generator(start);
    const rules = start <= 4 ? 40 : 400;
    const generated = config(rules);
    const contexts = Array.from({ length: 300 }, context);
    const linear = await run(generated, contexts, false);
    const indexed = await run(generated, contexts, true);
    expect(indexed).toEqual(linear);
    // The sets are not trivial: some hooks are blocked, some fail closed on a missing field.
    const outcomes = new Set(linear.map((d) => (d.error?.code ?? d.intensity ?? 'allow') as string));
    expect(outcomes.size).toBeGreaterThanOrEqual(2);
  });
});

describe('the index', () => {
  it('files guarded rules and evaluates only those whose guard accepts', () => {
    const index = createRuleIndex([
      { condition: 'tool.name == "Bash" and tool.input.command matches /\\bkubectl\\s+delete/' },
      { condition: 'lower(tool.name) in ["read", "grep"]' },
      { condition: 'tool.input.command matches /terraform\\s+(apply|destroy)/' },
      { condition: 'files.changed_count > 3' },
      { condition: undefined },
    ]);
    expect(index.indexed).toBe(3);
    const candidates = (context: unknown) => index.candidates(context as never);
    expect(candidates({ tool: { name: 'Bash', input: { command: 'ls' } } })).toEqual([3, 4]);
    expect(candidates({ tool: { name: 'Bash', input: { command: 'kubectl delete ns' } } })).toEqual([0, 3, 4]);
    expect(candidates({ tool: { name: 'GREP', input: { command: 'terraform apply' } } })).toEqual([1, 2, 3, 4]);
    // Absent fields: every rule guarded on them is evaluated (and fails closed if it restricts).
    expect(candidates({ tool: { input: {} } })).toEqual([0, 1, 2, 3, 4]);
  });

  it('Aho–Corasick finds every literal, overlapping ones included, once', () => {
    const automaton = new AhoCorasick(['he', 'she', 'his', 'hers', 'push', 'sh']);
    expect([...automaton.search('ushers')].sort()).toEqual([0, 1, 3, 5]);
    expect([...automaton.search('git push')].sort()).toEqual([4, 5]);
    expect([...automaton.search('a'.repeat(65_536))]).toEqual([]);
  });
});
