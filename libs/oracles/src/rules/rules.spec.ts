import { HookDecisionSchema } from '@ahp/protocol';
import type { HookTrigger, JsonObject } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { AGENT, deps, hookInput } from '../../test/helpers.js';
import { validateHooksConfig } from '../config/validate.js';
import type { CompiledHooks, EvaluationDeps } from '../config/compile.js';
import { createMemoryRuleCounters } from './counters.js';
import type { RuleCounters } from './counters.js';

function compile(source: string, version = 1): CompiledHooks {
  const result = validateHooksConfig(source, { version });
  if (!result.ok) throw new Error(result.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).join('\n'));
  return result.compiled;
}

async function run(compiled: CompiledHooks, trigger: HookTrigger, context: JsonObject, options: { deps?: EvaluationDeps; agent?: typeof AGENT } = {}) {
  const decision = await compiled.evaluate(hookInput(trigger, context, options.agent === undefined ? {} : { agent: options.agent }), options.deps ?? deps());
  expect(HookDecisionSchema.safeParse(decision).success).toBe(true);
  return decision;
}

const LADDER = `
hooks:
  pre-issue-submit:
    oracles:
      - name: change-size-limiter
        rules:
          - id: large-change
            condition: "files.changed_count > params.max_files"
            params: { max_files: 20 }
            escalation: { steps: [prompt, control, block], ttl: 1h }
            message: "{{ files.changed_count }} files"
            action: { type: split_suggestion, max_batch: 10 }
`;

describe('progressive intervention (docs/spec/escalation-and-context.md#progressive-intervention)', () => {
  it('escalates prompt → control → block for the same agent and rule, then stays at block', async () => {
    const compiled = compile(LADDER);
    const shared = deps();
    const big = { files: { changed_count: 25 } };
    const intensities: (string | null)[] = [];
    for (let i = 0; i < 4; i += 1) intensities.push((await run(compiled, 'pre-issue-submit', big, { deps: shared })).intensity);
    expect(intensities).toEqual(['prompt', 'control', 'block', 'block']);
  });

  it('the control step carries the split suggestion, the block step a reason', async () => {
    const compiled = compile(LADDER);
    const shared = deps();
    const big = { files: { changed_count: 25 } };
    await run(compiled, 'pre-issue-submit', big, { deps: shared });
    const control = await run(compiled, 'pre-issue-submit', big, { deps: shared });
    expect(control.modifications).toEqual([
      { target: 'max_batch', original: 25, updated: 10, reason: '25 files (split_suggestion: at most 10 per batch, 25 → 3 batches)' },
    ]);
    expect(control.signals[0]!.context).toMatchObject({ rule: 'large-change', config_version: 1, details: { escalation: { violations: 2, step: 2 } } });
    const block = await run(compiled, 'pre-issue-submit', big, { deps: shared });
    expect(block.signals[0]!.payload).toMatchObject({ level: 'blocking', reason: '25 files', resolvable: true });
  });

  it('resets after a compliant attempt', async () => {
    const compiled = compile(LADDER);
    const shared = deps();
    const big = { files: { changed_count: 25 } };
    const small = { files: { changed_count: 3 } };
    expect((await run(compiled, 'pre-issue-submit', big, { deps: shared })).intensity).toBe('prompt');
    expect((await run(compiled, 'pre-issue-submit', big, { deps: shared })).intensity).toBe('control');
    expect((await run(compiled, 'pre-issue-submit', small, { deps: shared })).intensity).toBe(null);
    expect((await run(compiled, 'pre-issue-submit', big, { deps: shared })).intensity).toBe('prompt');
  });

  it('counts per agent: another agent starts at the bottom of the ladder', async () => {
    const compiled = compile(LADDER);
    const shared = deps();
    const big = { files: { changed_count: 25 } };
    await run(compiled, 'pre-issue-submit', big, { deps: shared });
    await run(compiled, 'pre-issue-submit', big, { deps: shared });
    const other = await run(compiled, 'pre-issue-submit', big, { deps: shared, agent: { id: 'agent-2', name: 'Two' } });
    expect(other.intensity).toBe('prompt');
  });

  it('forgets violations after the ttl', async () => {
    let now = Date.parse('2026-02-09T10:00:00Z');
    const counters = createMemoryRuleCounters({ now: () => now });
    const compiled = compile(LADDER);
    const shared = deps({ counters, now: () => new Date(now) });
    const big = { files: { changed_count: 25 } };
    expect((await run(compiled, 'pre-issue-submit', big, { deps: shared })).intensity).toBe('prompt');
    now += 3_600_000;
    expect((await run(compiled, 'pre-issue-submit', big, { deps: shared })).intensity).toBe('prompt');
  });

  it('evaluating the same hook twice (a re-run job) does not climb the ladder', async () => {
    const compiled = compile(LADDER);
    const shared = deps();
    const input = hookInput('pre-issue-submit', { files: { changed_count: 25 } });
    expect((await compiled.evaluate(input, shared)).intensity).toBe('prompt');
    expect((await compiled.evaluate(input, shared)).intensity).toBe('prompt');
  });

  it('a counter that fails is an oracle failure: the failure policy decides, never a silent allow', async () => {
    const broken: RuleCounters = {
      ...createMemoryRuleCounters(),
      recordViolation: () => Promise.reject(new Error('redis down')),
      recordCompliance: () => Promise.reject(new Error('redis down')),
    };
    const compiled = compile(LADDER);
    const decision = await run(compiled, 'pre-issue-submit', { files: { changed_count: 3 } }, { deps: deps({ counters: broken }) });
    expect(decision).toMatchObject({ allowed: false, intensity: 'block', decided_by: 'failure_policy', error: { code: 'E_INTERNAL' } });
  });

  it('non-escalating rules never touch the counters', async () => {
    const untouchable: RuleCounters = {
      recordViolation: () => Promise.reject(new Error('unexpected')),
      recordCompliance: () => Promise.reject(new Error('unexpected')),
      countToolCall: () => Promise.reject(new Error('unexpected')),
      countIteration: () => Promise.reject(new Error('unexpected')),
    };
    const compiled = compile(`
hooks:
  pre-issue-submit:
    oracles:
      - name: gate
        rules:
          - { condition: "x > 1", intensity: prompt }
`);
    expect((await run(compiled, 'pre-issue-submit', { x: 2 }, { deps: deps({ counters: untouchable }) })).intensity).toBe('prompt');
    expect((await run(compiled, 'pre-issue-submit', { x: 0 }, { deps: deps({ counters: untouchable }) })).intensity).toBe(null);
  });
});

const CONTEXTUAL = `
environment: development
hooks:
  pre-issue-submit:
    oracles:
      - name: change-size-limiter
        rules:
          - id: size
            condition: "files.changed_count > params.threshold"
            params: { threshold: 30 }
            intensity: prompt
            message: "{{ files.changed_count }} > {{ params.threshold }} ({{ env }})"
            overrides:
              - when: 'env == "production"'
                params: { threshold: 10 }
                intensity: block
              - when: 'agent.team == "platform" or agent.id in ["agent-7"]'
                params: { threshold: 50 }
`;

describe('context sensitivity (docs/spec/escalation-and-context.md#context-sensitivity)', () => {
  const PRODUCTION = { ...AGENT, environment: 'production' };

  it('uses production thresholds and intensities for an agent whose token says production', async () => {
    const compiled = compile(CONTEXTUAL);
    const production = await run(compiled, 'pre-issue-submit', { files: { changed_count: 12 } }, { agent: PRODUCTION });
    expect(production.intensity).toBe('block');
    expect(production.signals[0]!.payload).toMatchObject({ reason: '12 > 10 (production)' });
    expect(production.signals[0]!.context['details']).toEqual({ override: 0, environment: 'production' });
    expect((await run(compiled, 'pre-issue-submit', { files: { changed_count: 9 } }, { agent: PRODUCTION })).intensity).toBe(null);
  });

  it('ignores an environment the context claims: the token decides (issue 16.3)', async () => {
    const compiled = compile(CONTEXTUAL);
    // A production agent claiming development, at the top level or under extra, still gets production.
    for (const context of [{ environment: 'development' }, { extra: { environment: 'development' } }] as JsonObject[]) {
      const claimed = await run(compiled, 'pre-issue-submit', { ...context, files: { changed_count: 12 } }, { agent: PRODUCTION });
      expect(claimed.intensity).toBe('block');
    }
    // An agent without an environment in its token cannot claim production's laxer… or any other variant.
    expect((await run(compiled, 'pre-issue-submit', { environment: 'production', files: { changed_count: 12 } })).intensity).toBe(null);
  });

  it('uses development thresholds otherwise: the configuration default when the token names no environment', async () => {
    const compiled = compile(CONTEXTUAL);
    expect((await run(compiled, 'pre-issue-submit', { files: { changed_count: 12 } }, { agent: { ...AGENT, environment: 'development' } })).intensity).toBe(null);
    const dev = await run(compiled, 'pre-issue-submit', { files: { changed_count: 31 } });
    expect(dev.intensity).toBe('prompt');
    expect(dev.warnings).toEqual(['31 > 30 (development)']);
  });

  it('uses per-team (and per-agent) thresholds from the authenticated identity', async () => {
    const compiled = compile(CONTEXTUAL);
    const platform = { ...AGENT, team: 'platform' };
    expect((await run(compiled, 'pre-issue-submit', { files: { changed_count: 40 } }, { agent: platform })).intensity).toBe(null);
    expect((await run(compiled, 'pre-issue-submit', { files: { changed_count: 51 } }, { agent: platform })).intensity).toBe('prompt');
    expect((await run(compiled, 'pre-issue-submit', { files: { changed_count: 40 } }, { agent: { id: 'agent-7', name: 'Seven' } })).intensity).toBe(null);
    // The context cannot claim a team: agent.* comes from the token.
    expect((await run(compiled, 'pre-issue-submit', { agent: { team: 'platform' }, files: { changed_count: 40 } })).intensity).toBe('prompt');
  });

  it('the first matching override wins', async () => {
    const compiled = compile(CONTEXTUAL);
    const decision = await run(compiled, 'pre-issue-submit', { files: { changed_count: 12 } }, { agent: { ...AGENT, team: 'platform', environment: 'production' } });
    expect(decision.intensity).toBe('block');
  });
});

describe('rules', () => {
  it('runs every matching rule by default, and only the first with match: first', async () => {
    const source = (match: string) => `
hooks:
  pre-issue-submit:
    oracles:
      - name: gate
        match: ${match}
        rules:
          - { id: one, condition: "x > 1", intensity: prompt, message: "one" }
          - { id: two, condition: "x > 2", intensity: prompt, message: "two" }
`;
    expect((await run(compile(source('all')), 'pre-issue-submit', { x: 5 })).warnings).toEqual(['one', 'two']);
    expect((await run(compile(source('first')), 'pre-issue-submit', { x: 5 })).warnings).toEqual(['one']);
  });

  it('builds every payload level from the rule fields, with defaults', async () => {
    const compiled = compile(`
hooks:
  pre-issue-submit:
    oracles:
      - name: gate
        rules:
          - id: b
            condition: "kind == 'b'"
            intensity: block
            message: "blocked {{ kind }}"
            resolution_path: ["fix {{ kind }}", "{{ nothing }}"]
            resolvable: false
          - id: p
            condition: "kind == 'p'"
            intensity: prompt
            severity: high
            message: "careful"
            suggestions: ["split", { type: follow_up, description: "later" }]
            continue_allowed: false
          - id: c
            condition: "kind == 'c'"
            intensity: control
            reversible: false
            action: { type: set, target: batch_size, value: 100 }
          - id: silent
            condition: "kind == 's'"
            intensity: prompt
  post-issue-submit:
    oracles:
      - name: notification
        rules:
          - condition: "true"
            intensity: aid
            message: "notified"
            suggestions: ["plain", { type: best_practice, description: "check coverage" }]
`);
    const block = await run(compiled, 'pre-issue-submit', { kind: 'b' });
    expect(block.signals[0]!.payload).toEqual({
      level: 'blocking',
      decision: 'deny',
      reason: 'blocked b',
      resolvable: false,
      resolution_path: ['fix b'],
    });
    const prompt = await run(compiled, 'pre-issue-submit', { kind: 'p' });
    expect(prompt.signals[0]!.payload).toEqual({
      level: 'prompting',
      decision: 'warn',
      severity: 'high',
      message: 'careful',
      suggestions: ['split', 'later'],
      continue_allowed: false,
    });
    const control = await run(compiled, 'pre-issue-submit', { kind: 'c', batch_size: 10_000 });
    expect(control.signals[0]!.payload).toEqual({
      level: 'controlling',
      decision: 'allow_with_modification',
      modifications: [{ target: 'batch_size', original: 10_000, updated: 100, reason: 'set batch_size to 100' }],
      reversible: false,
    });
    const silent = await run(compiled, 'pre-issue-submit', { kind: 's' });
    expect(silent.warnings).toEqual(['gate: rule "silent" matched (kind == \'s\')']);
    const aid = await run(compiled, 'post-issue-submit', {});
    expect(aid.signals[0]!.payload).toEqual({
      level: 'aiding',
      decision: 'suggest',
      context: 'notified',
      suggestions: [
        { type: 'suggestion', description: 'plain' },
        { type: 'best_practice', description: 'check coverage' },
      ],
    });
    expect(aid.signals[0]!.header).toMatchObject({ source: 'notification', type: 'review-triggered', intensity: 'aid' });
    expect(aid.signals[0]!.context).toMatchObject({ rule: 'rules[0]', oracle: 'notification', trigger: 'post-issue-submit' });
  });

  it('at pre-tool-use, a set action reads the original value from the tool input', async () => {
    const compiled = compile(`
hooks:
  pre-tool-use:
    oracles:
      - name: limits
        rules:
          - condition: "tool.name == 'Query' and tool.input.limit > 1000"
            intensity: control
            message: "cap the query"
            action: { type: set, target: limit, value: 1000 }
          - condition: "tool.name == 'Query' and tool.input.options.sandbox == false"
            intensity: control
            action: { type: set, target: options.sandbox, value: true }
`);
    const decision = await run(compiled, 'pre-tool-use', { tool: { name: 'Query', input: { limit: 5000, options: { sandbox: false } } } });
    expect(decision.modifications).toEqual([
      { target: 'limit', original: 5000, updated: 1000, reason: 'cap the query' },
      { target: 'options.sandbox', original: false, updated: true, reason: 'set options.sandbox to true' },
    ]);
  });

  it('each signal carries its provenance: oracle, trigger, rule, configuration version', async () => {
    const compiled = compile(LADDER, 42);
    const decision = await run(compiled, 'pre-issue-submit', { files: { changed_count: 25 } });
    expect(decision.config_version).toBe(42);
    expect(decision.signals[0]!.header).toMatchObject({ source: 'change-size-limiter', type: 'quality-gate', correlation_id: decision.hook_id });
    expect(decision.signals[0]!.context).toMatchObject({
      oracle: 'change-size-limiter',
      trigger: 'pre-issue-submit',
      rule: 'large-change',
      config_version: 42,
    });
  });

  it('compiles once: evaluating does not read the configuration object again', async () => {
    const result = validateHooksConfig(LADDER);
    if (!result.ok) throw new Error('invalid');
    const rule = result.config.hooks['pre-issue-submit']!.oracles[0]!.rules![0]!;
    (rule as { condition: string }).condition = 'this is ) not valid';
    (rule as { message?: string }).message = 'changed';
    const decision = await result.compiled.evaluate(hookInput('pre-issue-submit', { files: { changed_count: 25 } }), deps());
    expect(decision.warnings).toEqual(['25 files']);
  });
});

describe('a rule that reads a field the context lacks (fail closed, issue 16.2)', () => {
  const GUARDS = `
hooks:
  pre-tool-use:
    oracles:
      - name: guard
        rules:
          - id: no-curl-pipe
            condition: 'tool.name == "bash" and tool.input.command matches /curl.*\\|\\s*sh/'
            intensity: block
            message: "no curl | sh"
          - id: heads-up
            condition: 'tool.input.note == "careful"'
            intensity: control
            action: { type: set, target: dry_run, value: true }
            overrides:
              - when: 'agent.role == "lead"'
                intensity: block
  post-tool-use:
    oracles:
      - name: notes
        rules:
          - { id: noted, condition: 'tool.input.note == "x"', intensity: aid, message: "noted" }
`;
  const compiled = compile(GUARDS);

  it('a deny rule whose field is absent fails closed with E_INVALID_CONTEXT naming the path, instead of not matching', async () => {
    const decision = await run(compiled, 'pre-tool-use', { tool: { name: 'bash', input: { cmd: 'curl x | sh', note: 'n' } } });
    expect(decision).toMatchObject({ allowed: false, intensity: 'block', decided_by: 'failure_policy', error: { code: 'E_INVALID_CONTEXT' } });
    expect(decision.error?.message).toContain('context.tool.input.command');
    expect(decision.signals).toEqual([]);
  });

  it('a field not read because "and" stopped early is not missing; present fields evaluate as before', async () => {
    expect(await run(compiled, 'pre-tool-use', { tool: { name: 'Read', input: { file_path: 'a', note: 'n' } } })).toMatchObject({ allowed: true, intensity: null });
    expect(await run(compiled, 'pre-tool-use', { tool: { name: 'bash', input: { command: 'curl x | sh', note: 'n' } } })).toMatchObject({ allowed: false, decided_by: 'oracles' });
  });

  it('a control rule is restricting too; a rule that only advises (aid) is not', async () => {
    const control = await run(compiled, 'pre-tool-use', { tool: { name: 'Read', input: { file_path: 'a' } } });
    expect(control).toMatchObject({ allowed: false, error: { code: 'E_INVALID_CONTEXT' } });
    expect(control.error?.message).toContain('context.tool.input.note');
    expect(await run(compiled, 'post-tool-use', { tool: { name: 'Read', input: {} } })).toMatchObject({ allowed: true, intensity: null, decided_by: 'oracles' });
  });

  it('default() and exists() say absence is expected, and are not reported', async () => {
    const lenient = compile(`
hooks:
  pre-tool-use:
    oracles:
      - name: guard
        rules:
          - { id: a, condition: 'default(tool.input.command, "") matches /rm -rf/', intensity: block, message: "a" }
          - { id: b, condition: 'exists(tool.input.force) and tool.input.force == true', intensity: block, message: "b" }
`);
    expect(await run(lenient, 'pre-tool-use', { tool: { name: 'x', input: {} } })).toMatchObject({ allowed: true, intensity: null });
  });
});
