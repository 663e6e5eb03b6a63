import { HookDecisionSchema } from '@ahp/protocol';
import type { AgentIdentity, HookTrigger, JsonObject } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { deps, hookInput } from '../../test/helpers.js';
import type { CompiledHooks, EvaluationDeps } from '../config/compile.js';
import { validateHooksConfig } from '../config/validate.js';
import { createMemoryRuleCounters } from '../rules/counters.js';
import { canonicalJson, loopIteration, toolCallSignature } from './circuit-breaker.js';
import { BUILTIN_ORACLES } from './index.js';
import { changeSizeFacts, checklistFacts, testFacts } from './quality-gates.js';

function compile(source: string): CompiledHooks {
  const result = validateHooksConfig(source);
  if (!result.ok) throw new Error(result.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).join('\n'));
  return result.compiled;
}

function issues(source: string) {
  const result = validateHooksConfig(source);
  if (result.ok) throw new Error('expected issues');
  return result.issues;
}

async function run(compiled: CompiledHooks, trigger: HookTrigger, context: JsonObject, options: { deps?: EvaluationDeps; sessionId?: string; hookId?: string; agent?: AgentIdentity } = {}) {
  const decision = await compiled.evaluate(
    hookInput(trigger, context, {
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      ...(options.hookId === undefined ? {} : { hookId: options.hookId }),
      ...(options.agent === undefined ? {} : { agent: options.agent }),
    }),
    options.deps ?? deps(),
  );
  expect(HookDecisionSchema.safeParse(decision).success).toBe(true);
  return decision;
}

const ITEMS: JsonObject[] = [
  { id: 'chk-001', title: '设计数据库 Schema', done: true },
  { id: 'chk-002', title: '实现登录 API', status: 'done' },
  { id: 'chk-003', title: 'API 文档', done: false },
];

describe('the built-in oracles', () => {
  it('are the documented five', () => {
    expect([...BUILTIN_ORACLES.keys()]).toEqual(['checklist-validator', 'change-size-limiter', 'test-gate', 'permission-check', 'circuit-breaker']);
  });
});

describe('checklist-validator', () => {
  it('derives counts from checklist.items', () => {
    expect(checklistFacts({ checklist: { items: ITEMS, incomplete_count: 0 } })).toEqual({
      checklist: {
        items: ITEMS,
        total: 3,
        completed_count: 2,
        incomplete_count: 1,
        completion_rate: 2 / 3,
        incomplete_ids: ['chk-003'],
        incomplete: [{ id: 'chk-003', title: 'API 文档' }],
      },
    });
    expect(checklistFacts({ checklist: { items: [] } })).toMatchObject({ checklist: { incomplete_count: 0, completion_rate: 1 } });
    expect(checklistFacts({ checklist: { items: [{ title: 'x' }] } })).toMatchObject({ checklist: { incomplete_ids: ['#1'] } });
    // Without items, the agent's own counts are used as they are.
    expect(checklistFacts({ checklist: { incomplete_count: 2 } })).toEqual({ checklist: { incomplete_count: 2 } });
    expect(checklistFacts({})).toEqual({});
  });

  it('with the default rules (docs/spec/hooks-and-oracles.md#quality-gates): blocks and names every incomplete item in the resolution path', async () => {
    const compiled = compile('hooks:\n  pre-issue-submit:\n    oracles:\n      - name: checklist-validator\n');
    const decision = await run(compiled, 'pre-issue-submit', { checklist: { items: ITEMS } });
    expect(decision.intensity).toBe('block');
    expect(decision.signals[0]!.payload).toEqual({
      level: 'blocking',
      decision: 'deny',
      reason: 'Checklist incomplete: [chk-003]',
      resolvable: true,
      resolution_path: ['Complete chk-003: API 文档'],
    });
    expect((await run(compiled, 'pre-issue-submit', { checklist: { items: ITEMS.slice(0, 2) } })).intensity).toBe(null);
  });

  it('adds the default prompt when most of the checklist is done', async () => {
    const compiled = compile('hooks:\n  pre-issue-submit:\n    oracles:\n      - name: checklist-validator\n');
    const many = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, done: i > 0 }));
    const decision = await run(compiled, 'pre-issue-submit', { checklist: { items: many } });
    expect(decision.signals.map((s) => s.header.intensity)).toEqual(['block', 'prompt']);
    expect(decision.intensity).toBe('block');
  });

  it('lists at most max_listed items, with the configured prefix', async () => {
    const compiled = compile(
      'hooks:\n  pre-issue-close:\n    oracles:\n      - name: checklist-validator\n        options: { step_prefix: "完成", max_listed: 2 }\n',
    );
    const open = Array.from({ length: 5 }, (_, i) => ({ id: `chk-${i}`, title: `t${i}`, done: false }));
    const decision = await run(compiled, 'pre-issue-close', { checklist: { items: open } });
    // pre-issue-close allows only block: the default prompt rule is left out.
    expect(decision.signals).toHaveLength(1);
    expect(decision.signals[0]!.payload).toMatchObject({ resolution_path: ['完成 chk-0: t0', '完成 chk-1: t1', '… and 3 more'] });
  });

  it('refuses a trigger it does not run at, and bad options, with their paths', () => {
    expect(issues('hooks:\n  pre-tool-use:\n    oracles:\n      - name: checklist-validator\n')[0]).toMatchObject({
      line: 4,
      path: 'hooks.pre-tool-use.oracles[0].name',
      message: 'built-in oracle "checklist-validator" does not run at pre-tool-use (it runs at: pre-issue-submit, pre-issue-close, stop)',
    });
    expect(issues('hooks:\n  pre-issue-submit:\n    oracles:\n      - name: checklist-validator\n        options: { max_listed: 0 }\n')[0]).toMatchObject({
      line: 5,
      path: 'hooks.pre-issue-submit.oracles[0].options.max_listed',
    });
    expect(issues('hooks:\n  pre-issue-submit:\n    oracles:\n      - name: checklist-validator\n        options: { colour: red }\n')[0]).toMatchObject({
      path: 'hooks.pre-issue-submit.oracles[0].options.colour',
      message: 'unknown field "colour"',
    });
  });
});

describe('change-size-limiter', () => {
  it('derives changed_count from files.changed', () => {
    expect(changeSizeFacts({ files: { changed: ['a', 'b'], changed_count: 99 } })).toEqual({ files: { changed: ['a', 'b'], changed_count: 2 } });
    expect(changeSizeFacts({ files: { changed_count: 5 } })).toEqual({ files: { changed_count: 5 } });
  });

  it('with the default rules (docs/spec/hooks-and-oracles.md#quality-gates): control with split_suggestion max_batch 10 above 20 files', async () => {
    const compiled = compile('hooks:\n  pre-issue-submit:\n    oracles:\n      - name: change-size-limiter\n');
    const decision = await run(compiled, 'pre-issue-submit', { files: { changed: Array.from({ length: 25 }, (_, i) => `f${i}.ts`) } });
    expect(decision.intensity).toBe('control');
    expect(decision.modifications).toEqual([
      { target: 'max_batch', original: 25, updated: 10, reason: 'split_suggestion: at most 10 per batch, 25 → 3 batches' },
    ]);
    expect((await run(compiled, 'pre-issue-submit', { files: { changed_count: 20 } })).intensity).toBe(null);
  });

  it('takes its default thresholds from options', async () => {
    const compiled = compile('hooks:\n  pre-issue-submit:\n    oracles:\n      - name: change-size-limiter\n        options: { max_files: 5, max_batch: 2 }\n');
    const decision = await run(compiled, 'pre-issue-submit', { files: { changed_count: 6 } });
    expect(decision.modifications[0]).toMatchObject({ original: 6, updated: 2 });
  });
});

describe('test-gate', () => {
  it('derives failed_count and the coverage threshold', () => {
    expect(testFacts(80)({ tests: { failed: ['a'] }, coverage: { current: 70 } })).toEqual({
      tests: { failed: ['a'], failed_count: 1 },
      coverage: { current: 70, threshold: 80 },
    });
    expect(testFacts(80)({ coverage: { current: 70, threshold: 60 } })).toEqual({ coverage: { current: 70, threshold: 60 } });
  });

  it('failed tests block, naming them; coverage under the threshold prompts', async () => {
    const compiled = compile('hooks:\n  pre-issue-submit:\n    oracles:\n      - name: test-gate\n        options: { coverage_threshold: 80 }\n');
    const failed = await run(compiled, 'pre-issue-submit', { tests: { failed: ['auth.spec.ts > login', { name: 'db.spec.ts' }] }, coverage: { current: 90 } });
    expect(failed.intensity).toBe('block');
    expect(failed.signals[0]!.payload).toEqual({
      level: 'blocking',
      decision: 'deny',
      reason: 'Tests failed: 2',
      resolvable: true,
      resolution_path: ['Fix the failing test: auth.spec.ts > login', 'Fix the failing test: db.spec.ts'],
    });
    const low = await run(compiled, 'pre-issue-submit', { tests: { failed_count: 0 }, coverage: { current: 72 } });
    expect(low.intensity).toBe('prompt');
    expect(low.warnings).toEqual(['Coverage 72 is below the threshold 80']);
    expect((await run(compiled, 'pre-issue-submit', { tests: { failed: [] }, coverage: { current: 80 } })).intensity).toBe(null);
    // No coverage reported: nothing to compare, no signal (ordering with null is false).
    expect((await run(compiled, 'pre-issue-submit', { tests: { failed: [] } })).intensity).toBe(null);
  });
});

const PERMISSIONS = `
hooks:
  pre-tool-use:
    oracles:
      - name: permission-check
        options:
          deny:
            - name: rm-rf
              tool: Bash
              input: 'rm\\s+-rf'
              reason: "no rm -rf"
              resolution_path: ["delete specific files"]
            - name: secrets
              input: { regex: "id_RSA", flags: i }
              field: path
              reason: "no private keys"
          allow:
            - tool: "Bash|Read|Write"
            - tool: "mcp__.*"
          not_allowed:
            reason: "only Bash, Read, Write and MCP tools"
          rewrite:
            - tool: Bash
              input: '(\\bgit\\s+push\\s+)--force\\b'
              replace: "$1--force-with-lease"
              reason: "lease"
        rules:
          - id: no-sudo
            condition: 'tool.name == "Bash" and tool.input.command startswith "sudo "'
            intensity: block
            message: "no sudo"
`;

describe('permission-check', () => {
  const compiled = compile(PERMISSIONS);
  const tool = (name: string, input: JsonObject) => run(compiled, 'pre-tool-use', { tool: { name, input } });

  it('denies by pattern on the tool name and input (a shell command containing rm -rf)', async () => {
    const decision = await tool('Bash', { command: 'rm -rf ./build' });
    expect(decision).toMatchObject({ allowed: false, intensity: 'block' });
    expect(decision.signals[0]!.context['rule']).toBe('rm-rf');
    expect(decision.signals[0]!.payload).toMatchObject({ reason: 'no rm -rf', resolution_path: ['delete specific files'] });
    expect((await tool('Read', { path: '/home/me/.ssh/ID_rsa' })).signals[0]!.context['rule']).toBe('secrets');
  });

  it('denies tools outside the allow list, and allows the rest', async () => {
    const outside = await tool('WebFetch', { url: 'https://example.com' });
    expect(outside.signals[0]!.payload).toMatchObject({ reason: 'only Bash, Read, Write and MCP tools' });
    expect(outside.signals[0]!.context['rule']).toBe('not-allowed');
    expect((await tool('mcp__github__search', { q: 'x' })).intensity).toBe(null);
    expect((await tool('Bash', { command: 'ls' })).intensity).toBe(null);
  });

  it('rewrites and reports the modification', async () => {
    const decision = await tool('Bash', { command: 'git push --force origin main' });
    expect(decision.intensity).toBe('control');
    expect(decision.modifications).toEqual([
      { target: '/command', original: 'git push --force origin main', updated: 'git push --force-with-lease origin main', reason: 'lease' },
    ]);
  });

  it('runs expression rules after the patterns', async () => {
    const decision = await tool('Bash', { command: 'sudo ls' });
    expect(decision.signals[0]!.payload).toMatchObject({ reason: 'no sudo' });
    expect(decision.signals[0]!.context['rule']).toBe('no-sudo');
  });

  it('include_defaults adds the built-in default rules', async () => {
    const withDefaults = compile('hooks:\n  pre-tool-use:\n    oracles:\n      - name: permission-check\n        options: { include_defaults: true }\n');
    const decision = await run(withDefaults, 'pre-tool-use', { tool: { name: 'Bash', input: { command: 'rm -rf /' } } });
    expect(decision.signals[0]!.context['rule']).toBe('rm-root-or-home');
  });

  it('reports a bad pattern at its path and line', () => {
    const found = issues('hooks:\n  pre-tool-use:\n    oracles:\n      - name: permission-check\n        options:\n          deny:\n            - input: "rm (-rf"\n              reason: x\n');
    expect(found[0]).toMatchObject({ line: 7, path: 'hooks.pre-tool-use.oracles[0].options.deny[0].input' });
    expect(found[0]!.message).toMatch(/^not a valid RE2 pattern: missing closing \)/);
    const lookahead = issues("hooks:\n  pre-tool-use:\n    oracles:\n      - name: permission-check\n        options:\n          deny:\n            - reason: x\n              input: 'rm(?= -rf)'\n");
    expect(lookahead[0]).toMatchObject({ line: 8, path: 'hooks.pre-tool-use.oracles[0].options.deny[0].input' });
    expect(lookahead[0]!.message).toMatch(/^lookahead "\(\?=…\)" is not supported: patterns run on RE2/);
    const noPattern = issues('hooks:\n  pre-tool-use:\n    oracles:\n      - name: permission-check\n        options:\n          deny:\n            - reason: x\n');
    expect(noPattern[0]).toMatchObject({ path: 'hooks.pre-tool-use.oracles[0].options.deny[0]' });
    const badFlags = issues('hooks:\n  pre-tool-use:\n    oracles:\n      - name: permission-check\n        options:\n          allow:\n            - tool: { regex: x, flags: g }\n');
    expect(badFlags[0]!.path).toBe('hooks.pre-tool-use.oracles[0].options.allow[0].tool.flags');
  });
});

describe('circuit-breaker (docs/spec/circuit-breakers.md#server-side-breakers)', () => {
  const compiled = compile('hooks:\n  pre-tool-use:\n    oracles:\n      - name: circuit-breaker\n  stop:\n    oracles:\n      - name: circuit-breaker\n');
  const call = { tool: { name: 'Bash', input: { command: 'npm test', cwd: '/repo' } } };

  it('blocks the 51st identical tool call of an agent with E_STUTTERING', async () => {
    const shared = deps();
    for (let i = 1; i <= 50; i += 1) expect((await run(compiled, 'pre-tool-use', call, { deps: shared })).intensity, `call ${i}`).toBe(null);
    const stutter = await run(compiled, 'pre-tool-use', call, { deps: shared });
    expect(stutter).toMatchObject({ allowed: false, intensity: 'block' });
    expect(stutter.signals[0]!.header).toMatchObject({ source: 'circuit-breaker', type: 'circuit-breaker' });
    expect(stutter.signals[0]!.context).toMatchObject({ rule: 'E_STUTTERING', details: { code: 'E_STUTTERING', calls: 51, limit: 50 } });
    expect(stutter.signals[0]!.payload).toMatchObject({ resolvable: true });
    expect((stutter.signals[0]!.payload as { reason: string }).reason).toMatch(/^E_STUTTERING: /);
    // A different call, or the same call by another agent, is fine; a new session of the same
    // agent (a restart) is not a way out.
    expect((await run(compiled, 'pre-tool-use', { tool: { name: 'Bash', input: { command: 'npm run lint' } } }, { deps: shared })).intensity).toBe(null);
    expect((await run(compiled, 'pre-tool-use', call, { deps: shared, agent: { id: 'other-agent', name: 'Other' } })).intensity).toBe(null);
    expect((await run(compiled, 'pre-tool-use', call, { deps: shared, sessionId: 'session-2' })).intensity).toBe('block');
  });

  it('treats inputs that differ only in key order as identical', async () => {
    const shared = deps();
    const small = compile('hooks:\n  pre-tool-use:\n    oracles:\n      - name: circuit-breaker\n        options: { max_identical_tool_calls: 2 }\n');
    await run(small, 'pre-tool-use', { tool: { name: 'Bash', input: { command: 'x', cwd: '/' } } }, { deps: shared });
    await run(small, 'pre-tool-use', { tool: { name: 'Bash', input: { cwd: '/', command: 'x' } } }, { deps: shared });
    expect((await run(small, 'pre-tool-use', { tool: { input: { command: 'x', cwd: '/' }, name: 'Bash' } }, { deps: shared })).intensity).toBe('block');
  });

  it('counts a re-evaluated hook once', async () => {
    const shared = deps();
    const small = compile('hooks:\n  pre-tool-use:\n    oracles:\n      - name: circuit-breaker\n        options: { max_identical_tool_calls: 1 }\n');
    const hookId = '00000000-0000-4000-a000-00000000abcd';
    expect((await run(small, 'pre-tool-use', call, { deps: shared, hookId })).intensity).toBe(null);
    expect((await run(small, 'pre-tool-use', call, { deps: shared, hookId })).intensity).toBe(null);
    expect((await run(small, 'pre-tool-use', call, { deps: shared })).intensity).toBe('block');
  });

  it('blocks with MAX_ITER after 20 distinct loop iterations of an agent, in its next session too', async () => {
    const shared = deps();
    for (let i = 1; i <= 20; i += 1) {
      // Several hooks per iteration count once.
      expect((await run(compiled, 'pre-tool-use', { loop: { iteration: i }, tool: { name: 'Read', input: { n: i } } }, { deps: shared })).intensity).toBe(null);
      expect((await run(compiled, 'stop', { loop: { iteration: i } }, { deps: shared })).intensity).toBe(null);
    }
    const stopped = await run(compiled, 'pre-tool-use', { loop: { iteration: 21 }, tool: { name: 'Read', input: { n: 21 } } }, { deps: shared });
    expect(stopped.intensity).toBe('block');
    expect(stopped.signals[0]!.context).toMatchObject({ rule: 'MAX_ITER', details: { code: 'MAX_ITER', iterations: 21, limit: 20, iteration: 21 } });
    expect(stopped.signals[0]!.payload).toMatchObject({ resolvable: false });
    expect((stopped.signals[0]!.payload as { reason: string }).reason).toMatch(/^MAX_ITER: /);
    // A restart (new session, iterations from 1 again) stays stopped.
    expect((await run(compiled, 'stop', { loop: { iteration: 1 } }, { deps: shared, sessionId: 'session-2' })).intensity).toBe('block');
    // Hooks without a loop iteration are not counted.
    expect((await run(compiled, 'stop', {}, { deps: deps() })).intensity).toBe(null);
  });

  it('reads only positive integer iterations', () => {
    expect(loopIteration({ loop: { iteration: 3 } })).toBe(3);
    for (const bad of [0, -1, 1.5, '3', null]) expect(loopIteration({ loop: { iteration: bad } }), String(bad)).toBeUndefined();
    expect(loopIteration({})).toBeUndefined();
  });

  it('refuses rules, and fails (never allows silently) without counters', async () => {
    expect(issues('hooks:\n  pre-tool-use:\n    oracles:\n      - name: circuit-breaker\n        rules: []\n')[0]).toMatchObject({
      path: 'hooks.pre-tool-use.oracles[0].rules',
      message: 'built-in oracle "circuit-breaker" takes options, not rules',
    });
    expect(issues('hooks:\n  post-tool-use:\n    oracles:\n      - name: circuit-breaker\n')[0]!.message).toMatch(/does not run at post-tool-use/);
    const missing = { ...createMemoryRuleCounters(), countToolCall: () => Promise.reject(new Error('redis down')) };
    const decision = await run(compiled, 'pre-tool-use', call, { deps: deps({ counters: missing }) });
    expect(decision).toMatchObject({ allowed: false, decided_by: 'failure_policy', error: { code: 'E_INTERNAL' } });
  });

  it('signs a call with the tool name and the canonical JSON of its input', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: null }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":null,"d":1}]}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(toolCallSignature('Bash', { a: 1, b: 2 })).toBe(toolCallSignature('Bash', { b: 2, a: 1 }));
    expect(toolCallSignature('Bash', { a: 1 })).not.toBe(toolCallSignature('Sh', { a: 1 }));
    expect(toolCallSignature('Bash', { a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});
