import { HookDecisionSchema, MODIFICATION_CONFLICT_SIGNAL_TYPE, applyModifications } from '@ahp/protocol';
import { describe, expect, it, vi } from 'vitest';
import { NOW, deps, hookInput } from '../../test/helpers.js';
import type { Oracle, OracleVerdict } from '../oracle.js';
import { compileHooksConfig } from './compile.js';
import { validateHooksConfig } from './validate.js';

const BLOCK: OracleVerdict = {
  intensity: 'block',
  rule: 'friday',
  payload: { level: 'blocking', decision: 'deny', reason: 'No deploys on Friday.', resolvable: true, resolution_path: ['Deploy on Monday.'] },
};

function plugin(name: string, evaluate: Oracle['evaluate'], triggers?: Oracle['triggers']): Oracle {
  return { name, ...(triggers === undefined ? {} : { triggers }), evaluate };
}

const throwing = plugin('acme/flaky', () => {
  throw new Error('secret internals');
});
const hanging = plugin('acme/slow', (_input, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve([]))));
const friday = plugin('acme/no-friday-deploys', () => [BLOCK], ['pre-tool-use']);

function compile(source: string, plugins: Oracle[] = []) {
  const result = validateHooksConfig(source, { plugins, version: 9 });
  if (!result.ok) throw new Error(result.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).join('\n'));
  return result.compiled;
}

const tool = { tool: { name: 'Bash', input: { command: 'ls' } } };

describe('CompiledHooks.evaluate', () => {
  // Audit finding 2: the earlier oracle's rewrite used to win silently, cancelling the rule's `set`.
  it('blocks, naming both, when two oracles rewrite one field in ways that cannot both apply; one rewrite alone applies', async () => {
    const compiled = compile(`
hooks:
  pre-tool-use:
    oracles:
      - name: permission-check
        options: { include_defaults: true }
      - name: commit-hygiene
        rules:
          - id: no-verify
            condition: 'tool.name == "Bash" and tool.input.command matches /--no-verify/'
            intensity: control
            action: { type: set, target: command, value: "echo 'commit hooks may not be skipped'" }
            message: "--no-verify is not allowed"
`);
    const alone = await compiled.evaluate(hookInput('pre-tool-use', { tool: { name: 'Bash', input: { command: 'git commit --no-verify -m x' } } }), deps());
    expect(alone.allowed).toBe(true);
    expect(applyModifications({ command: 'git commit --no-verify -m x' }, alone.modifications)).toEqual({ command: "echo 'commit hooks may not be skipped'" });

    const command = 'git commit --no-verify -m x && git push --force';
    const both = await compiled.evaluate(hookInput('pre-tool-use', { tool: { name: 'Bash', input: { command } } }), deps());
    expect(HookDecisionSchema.parse(both)).toMatchObject({ allowed: false, intensity: 'block' });
    const conflict = both.signals.find((s) => s.header.type === MODIFICATION_CONFLICT_SIGNAL_TYPE);
    expect(conflict?.payload.level === 'blocking' && conflict.payload.reason).toMatch(/command: permission-check .*changes it to .*commit-hygiene \(rule no-verify\) to "echo/);
  });

  it('allows a trigger that has no hook, with the configuration version', async () => {
    const compiled = compile('hooks: {}');
    expect(compiled.triggers).toEqual([]);
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps());
    expect(decision).toEqual({
      hook_id: decision.hook_id,
      trigger: 'pre-tool-use',
      allowed: true,
      intensity: null,
      signals: [],
      modifications: [],
      warnings: [],
      decided_by: 'oracles',
      config_version: 9,
      decided_at: NOW.toISOString(),
    });
  });

  it('runs oracles in the configured order and keeps every signal', async () => {
    const calls: string[] = [];
    const recorder = (name: string, verdicts: OracleVerdict[]) =>
      plugin(name, () => {
        calls.push(name);
        return verdicts;
      });
    const prompt: OracleVerdict = {
      intensity: 'prompt',
      payload: { level: 'prompting', decision: 'warn', severity: 'low', message: 'hm', suggestions: [], continue_allowed: true },
    };
    const compiled = compile(
      'hooks:\n  pre-issue-submit:\n    oracles:\n      - name: acme/b\n      - name: acme/a\n      - name: acme/c\n',
      [recorder('acme/a', [prompt]), recorder('acme/b', [prompt]), recorder('acme/c', [])],
    );
    const decision = await compiled.evaluate(hookInput('pre-issue-submit', {}), deps());
    expect(calls).toEqual(['acme/b', 'acme/a', 'acme/c']);
    expect(decision.signals.map((s) => s.header.source)).toEqual(['acme/b', 'acme/a']);
  });
});

describe('plugins (the same Oracle interface as the built-ins)', () => {
  it('runs a TypeScript oracle named in the configuration, with full signal headers', async () => {
    const compiled = compile('hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/no-friday-deploys\n', [friday]);
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps());
    expect(HookDecisionSchema.parse(decision)).toEqual(decision);
    expect(decision.signals[0]!.header).toEqual({
      id: '00000000-0000-4000-8000-000000000001',
      type: 'permission-check',
      timestamp: NOW.toISOString(),
      source: 'acme/no-friday-deploys',
      intensity: 'block',
      correlation_id: decision.hook_id,
    });
    expect(decision.signals[0]!.context).toEqual({ oracle: 'acme/no-friday-deploys', trigger: 'pre-tool-use', rule: 'friday', config_version: 9 });
  });

  it('can run under another name with `use`, and add YAML rules to it', async () => {
    const compiled = compile(
      `hooks:
  pre-tool-use:
    oracles:
      - name: deploy-guard
        use: acme/no-friday-deploys
        rules:
          - { condition: "tool.name == 'Bash'", intensity: control, action: { type: set, target: dry_run, value: true } }
`,
      [friday],
    );
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps());
    expect(decision.signals.map((s) => [s.header.source, s.header.intensity])).toEqual([
      ['deploy-guard', 'block'],
      ['deploy-guard', 'control'],
    ]);
  });

  it('reports unknown names, misplaced plugins and plugin problems', () => {
    const problems = (source: string, plugins: Oracle[] = []) => {
      const result = validateHooksConfig(source, { plugins });
      return result.ok ? [] : result.issues;
    };
    expect(problems('hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/missing\n')[0]).toMatchObject({
      line: 4,
      path: 'hooks.pre-tool-use.oracles[0].name',
      message: expect.stringMatching(/^unknown oracle "acme\/missing": not a built-in oracle or a loaded plugin, and it has no rules/),
    });
    expect(problems('hooks:\n  pre-tool-use:\n    oracles:\n      - name: x\n        use: acme/missing\n')[0]).toMatchObject({ line: 5, path: 'hooks.pre-tool-use.oracles[0].use' });
    expect(problems('hooks:\n  post-tool-use:\n    oracles:\n      - name: acme/no-friday-deploys\n', [friday])[0]!.message).toMatch(/does not run at post-tool-use/);
    expect(problems('hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/no-friday-deploys\n        options: { a: 1 }\n', [friday])[0]!.message).toMatch(/takes no options/);
    expect(problems('hooks: {}', [plugin('test-gate', () => [])])[0]).toMatchObject({ line: 0, message: expect.stringMatching(/name of a built-in/) });
    expect(problems('hooks: {}', [{ name: 'Bad Name' } as unknown as Oracle])[0]!.message).toMatch(/is not an oracle/);
  });

  it('a rules-only oracle needs no plugin; use: rules makes a look-alike name explicit', () => {
    expect(validateHooksConfig('hooks:\n  post-issue-submit:\n    oracles:\n      - name: notification\n        rules: [{ condition: "true", intensity: aid }]\n').ok).toBe(true);
    const lookalike = 'hooks:\n  pre-issue-submit:\n    oracles:\n      - name: test-gates\n        rules: [{ condition: "true", intensity: prompt }]\n';
    expect(validateHooksConfig(lookalike).ok).toBe(false);
    expect(validateHooksConfig(lookalike.replace('- name: test-gates', '- name: test-gates\n        use: rules')).ok).toBe(true);
    expect(validateHooksConfig('hooks:\n  pre-issue-submit:\n    oracles:\n      - name: x\n        options: {}\n        rules: [{ condition: "true", intensity: prompt }]\n').ok).toBe(false);
  });

  it('a disabled oracle is checked but not run', async () => {
    const spy = vi.fn(() => [BLOCK]);
    const compiled = compile('hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/spy\n        enabled: false\n', [plugin('acme/spy', spy)]);
    expect((await compiled.evaluate(hookInput('pre-tool-use', tool), deps())).intensity).toBe(null);
    expect(spy).not.toHaveBeenCalled();
    expect(validateHooksConfig('hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/none\n        enabled: false\n').ok).toBe(false);
  });
});

describe('failure policy', () => {
  it('a throwing plugin at a pre-* trigger is denied by the default fail_closed policy, marked as such', async () => {
    const compiled = compile('hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/flaky\n', [throwing]);
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps());
    expect(decision).toMatchObject({
      allowed: false,
      intensity: 'block',
      signals: [],
      decided_by: 'failure_policy',
      config_version: 9,
      error: { code: 'E_INTERNAL', message: 'oracle "acme/flaky" failed with an error; failure policy fail_closed decided' },
    });
    expect(JSON.stringify(decision)).not.toContain('secret internals');
  });

  it('a post-* trigger fails open by default, marked as such', async () => {
    const compiled = compile('hooks:\n  post-tool-use:\n    oracles:\n      - name: acme/flaky\n', [throwing]);
    const decision = await compiled.evaluate(hookInput('post-tool-use', tool), deps());
    expect(decision).toMatchObject({ allowed: true, intensity: null, decided_by: 'failure_policy', error: { code: 'E_INTERNAL' } });
  });

  it('a timeout uses the hook budget and E_TIMEOUT', async () => {
    const compiled = compile('hooks:\n  pre-tool-use:\n    budget_ms: 20\n    oracles:\n      - name: acme/slow\n', [hanging]);
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps({ now: () => new Date() }));
    expect(decision).toMatchObject({ allowed: false, decided_by: 'failure_policy', error: { code: 'E_TIMEOUT', message: expect.stringMatching(/within 20 ms/) } });
  });

  it('an oracle-level budget overrides the hook budget', async () => {
    const compiled = compile('hooks:\n  pre-tool-use:\n    budget_ms: 60000\n    oracles:\n      - name: acme/slow\n        budget_ms: 15\n', [hanging]);
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps({ now: () => new Date() }));
    expect(decision.error?.message).toMatch(/within 15 ms/);
  });

  it('the hook policy can be fail_open at a pre-* trigger', async () => {
    const compiled = compile('hooks:\n  pre-tool-use:\n    failure_policy: fail_open\n    oracles:\n      - name: acme/flaky\n', [throwing]);
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps());
    expect(decision).toMatchObject({ allowed: true, intensity: null, decided_by: 'failure_policy' });
  });

  it('an oracle with fail_open is skipped and the others still decide; the skip is recorded', async () => {
    const compiled = compile(
      'hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/flaky\n        failure_policy: fail_open\n      - name: acme/no-friday-deploys\n',
      [throwing, friday],
    );
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps());
    expect(decision).toMatchObject({
      allowed: false,
      intensity: 'block',
      decided_by: 'oracles',
      error: { code: 'E_INTERNAL', message: 'oracle "acme/flaky" failed with an error; its failure policy fail_open skipped it' },
    });
    expect(decision.signals.map((s) => s.header.source)).toEqual(['acme/no-friday-deploys']);
    expect(HookDecisionSchema.safeParse(decision).success).toBe(true);
  });

  it('when only a fail_open oracle failed and nobody intervened, the allow is the policy\'s', async () => {
    const compiled = compile('hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/flaky\n        failure_policy: fail_open\n', [throwing]);
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps());
    expect(decision).toMatchObject({ allowed: true, intensity: null, decided_by: 'failure_policy', error: { code: 'E_INTERNAL' } });
  });

  it('an oracle with fail_closed denies even where the hook fails open', async () => {
    const compiled = compile('hooks:\n  user-prompt-submit:\n    oracles:\n      - name: acme/flaky\n        failure_policy: fail_closed\n', [throwing]);
    const decision = await compiled.evaluate(hookInput('user-prompt-submit', {}), deps());
    expect(decision).toMatchObject({ allowed: false, intensity: 'block', decided_by: 'failure_policy', error: { message: expect.stringMatching(/fail_closed decided$/) } });
  });

  it('never lets an invalid answer through', async () => {
    const liar = plugin('acme/liar', () => [{ intensity: 'aid', payload: { level: 'aiding', decision: 'suggest', context: 'x', suggestions: [] } }]);
    const compiled = compile('hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/liar\n', [liar]);
    const decision = await compiled.evaluate(hookInput('pre-tool-use', tool), deps());
    expect(decision).toMatchObject({ allowed: false, decided_by: 'failure_policy', error: { message: expect.stringMatching(/not allowed at pre-tool-use/) } });
  });
});

describe('compileHooksConfig', () => {
  it('compiles a stored value, with its version', async () => {
    const compiled = compileHooksConfig(
      { hooks: { 'post-issue-submit': { oracles: [{ name: 'notification', rules: [{ condition: 'true', intensity: 'aid', message: 'ok' }] }] } } },
      { version: 12 },
    );
    expect(compiled.version).toBe(12);
    expect(compiled.triggers).toEqual(['post-issue-submit']);
    const decision = await compiled.evaluate(hookInput('post-issue-submit', {}), deps());
    expect(decision).toMatchObject({ intensity: 'aid', config_version: 12 });
    expect(decision.signals[0]!.context['config_version']).toBe(12);
  });

  it('refuses a negative version', () => {
    expect(() => compileHooksConfig({ hooks: {} }, { version: -1 })).toThrow(RangeError);
  });
});
