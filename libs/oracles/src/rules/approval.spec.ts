/**
 * Rules with `require_approval`: loading (line-numbered errors), and what the evaluation hands to
 * the worker — a block that asks for approval, which does not stop the other oracles.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HookDecisionSchema, approvalRequirementOf } from '@ahp/protocol';
import type { JsonObject } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { deps, hookInput } from '../../test/helpers.js';
import { validateHooksConfig } from '../config/validate.js';
import type { CompiledHooks } from '../config/compile.js';
import { evaluateHook } from '../evaluate.js';
import type { Oracle } from '../oracle.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

function compile(source: string): CompiledHooks {
  const result = validateHooksConfig(source, { version: 3 });
  if (!result.ok) throw new Error(result.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).join('\n'));
  return result.compiled;
}

const APPROVALS = yaml(
  'hooks:',
  '  pre-tool-use:',
  '    oracles:',
  '      - name: risky-commands',
  '        use: rules',
  '        rules:',
  '          - id: destructive-shell',
  '            condition: \'tool.name == "bash" and tool.input.command matches /rm\\s+-rf|git\\s+push\\s+--force/\'',
  '            require_approval:',
  '              deadline: 10m',
  '              on_expiry: approve',
  '              prompt_fallback: deny',
  '              message: "{{ tool.input.command }} needs an approval"',
  '          - id: any-deploy',
  '            condition: \'tool.name == "deploy"\'',
  '            require_approval: {}',
  '      - name: limits',
  '        use: rules',
  '        rules:',
  '          - id: timeout',
  '            condition: \'tool.name == "bash"\'',
  '            intensity: control',
  '            action: { type: set, target: timeout, value: 60 }',
);

async function evaluate(compiled: CompiledHooks, context: JsonObject) {
  const decision = await compiled.evaluate(hookInput('pre-tool-use', context), deps());
  expect(HookDecisionSchema.safeParse(decision).success).toBe(true);
  return decision;
}

describe('require_approval: loading', () => {
  it('loads a valid configuration', () => {
    expect(validateHooksConfig(APPROVALS).ok).toBe(true);
  });

  it('reports a misplaced approval rule at its line', () => {
    const source = yaml(
      'hooks:',
      '  pre-issue-submit:',
      '    oracles:',
      '      - name: gate',
      '        use: rules',
      '        rules:',
      '          - condition: "true"',
      '            require_approval: { deadline: 5m }',
    );
    const result = validateHooksConfig(source);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([
      expect.objectContaining({ line: 8, path: 'hooks.pre-issue-submit.oracles[0].rules[0].require_approval', message: expect.stringContaining('only for pre-tool-use') }),
    ]);
  });

  it('reports an intensity next to require_approval, a bad option and a bad message template, each at its line', () => {
    const source = yaml(
      'hooks:',
      '  pre-tool-use:',
      '    oracles:',
      '      - name: gate',
      '        use: rules',
      '        rules:',
      '          - condition: "true"',
      '            intensity: block',
      '            require_approval: { on_expiry: later }',
      '          - condition: "true"',
      '            require_approval:',
      '              message: "{{ tool.name "',
    );
    const result = validateHooksConfig(source);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.line, i.path])).toEqual([
      [9, 'hooks.pre-tool-use.oracles[0].rules[0].require_approval.on_expiry'],
    ]);
    // Schema problems come first; once they are fixed the compiler reports the template and the intensity.
    const fixed = validateHooksConfig(source.replace('on_expiry: later', 'on_expiry: reject'));
    expect(fixed.ok).toBe(false);
    if (fixed.ok) return;
    expect(fixed.issues.map((i) => [i.line, i.path])).toEqual([[8, 'hooks.pre-tool-use.oracles[0].rules[0].intensity']]);
    const intensityGone = validateHooksConfig(source.replace('on_expiry: later', 'on_expiry: reject').replace('            intensity: block\n', ''));
    expect(intensityGone.ok).toBe(false);
    if (intensityGone.ok) return;
    expect(intensityGone.issues).toEqual([expect.objectContaining({ line: 11, path: 'hooks.pre-tool-use.oracles[0].rules[1].require_approval.message' })]);
  });
});

describe('require_approval: evaluation', () => {
  it('a matching rule blocks with the requirement in the signal context and the rendered message', async () => {
    const decision = await evaluate(compile(APPROVALS), { tool: { name: 'bash', input: { command: 'rm -rf build' } } });
    expect(decision).toMatchObject({ allowed: false, intensity: 'block' });
    const approval = decision.signals.find((s) => approvalRequirementOf(s) !== undefined)!;
    expect(approval.header).toMatchObject({ type: 'approval-required', source: 'risky-commands', intensity: 'block' });
    expect(approval.context).toMatchObject({ rule: 'destructive-shell', config_version: 3, approval: { deadline_ms: 600_000, on_expiry: 'approve', prompt_fallback: 'deny' } });
    expect(approval.payload).toMatchObject({ level: 'blocking', reason: 'rm -rf build needs an approval', resolvable: true });
  });

  it('does not stop the evaluation: the other oracles still answer', async () => {
    const decision = await evaluate(compile(APPROVALS), { tool: { name: 'bash', input: { command: 'git push --force' } } });
    expect(decision.signals.map((s) => s.header.source)).toEqual(['risky-commands', 'limits']);
    expect(decision.modifications).toEqual([expect.objectContaining({ target: 'timeout', updated: 60 })]);
  });

  it('uses the defaults: 15 minutes, reject, no prompt fallback named (a held prompt shows the agent\'s dialog), a message naming the tool and the rule', async () => {
    const decision = await evaluate(compile(APPROVALS), { tool: { name: 'deploy', input: {} } });
    expect(approvalRequirementOf(decision.signals[0]!)).toEqual({ deadline_ms: 900_000, on_expiry: 'reject' });
    expect(decision.signals[0]!.payload).toMatchObject({ reason: 'this call of deploy needs an operator\'s approval (rule "any-deploy" of risky-commands)' });
  });

  it('asks for nothing when the condition does not hold', async () => {
    const decision = await evaluate(compile(APPROVALS), { tool: { name: 'bash', input: { command: 'ls' } } });
    expect(decision.signals.some((s) => approvalRequirementOf(s) !== undefined)).toBe(false);
    expect(decision.allowed).toBe(true);
  });

  it('a plugin oracle may ask for approval at pre-tool-use only, and only with a block', async () => {
    const asking = (intensity: 'block' | 'control'): Oracle => ({
      name: 'asker',
      evaluate: () => [
        intensity === 'block'
          ? { intensity, payload: { level: 'blocking', decision: 'deny', reason: 'ask', resolvable: true, resolution_path: [] }, approval: { deadline_ms: 1000, on_expiry: 'reject' } }
          : {
              intensity,
              payload: { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'x', original: null, updated: 1, reason: 'r' }], reversible: true },
              approval: { deadline_ms: 1000, on_expiry: 'reject' },
            },
      ],
    });
    const options = (oracle: Oracle, trigger: 'pre-tool-use' | 'pre-issue-start') => ({
      input: hookInput(trigger, {}),
      oracles: [oracle],
      now: () => new Date('2025-01-02T03:04:05.000Z'),
      newId: () => '00000000-0000-4000-8000-000000000001',
      budgetMs: 1000,
    });
    expect((await evaluateHook(options(asking('block'), 'pre-tool-use'))).decided_by).toBe('oracles');
    const control = await evaluateHook(options(asking('control'), 'pre-tool-use'));
    expect(control).toMatchObject({ decided_by: 'failure_policy', error: { code: 'E_INTERNAL', message: expect.stringContaining('only for a block at pre-tool-use') } });
    const elsewhere = await evaluateHook(options(asking('block'), 'pre-issue-start'));
    expect(elsewhere).toMatchObject({ decided_by: 'failure_policy' });
  });
});

describe('require_approval in .ahp/hooks.yaml', () => {
  const example = readFileSync(fileURLToPath(new URL('../../../../.ahp/hooks.yaml', import.meta.url)), 'utf8');

  it('sends production infrastructure changes to a person and leaves other commands alone', async () => {
    const compiled = compile(example);
    const bash = (command: string) => evaluate(compiled, { tool: { name: 'bash', input: { command } } });
    const rollout = await bash('kubectl rollout restart deployment/api');
    expect(rollout.allowed).toBe(false);
    const asking = rollout.signals.find((s) => approvalRequirementOf(s) !== undefined)!;
    expect(asking.context).toMatchObject({ oracle: 'risky-commands', rule: 'production-infrastructure', approval: { deadline_ms: 900_000, on_expiry: 'reject' } });
    expect(asking.payload).toMatchObject({ reason: 'kubectl rollout restart deployment/api changes production infrastructure' });
    expect((await bash('terraform destroy -auto-approve')).signals.some((s) => approvalRequirementOf(s) !== undefined)).toBe(true);
    for (const command of ['kubectl get pods', 'terraform plan', 'ls -la']) {
      expect((await bash(command)).signals.some((s) => approvalRequirementOf(s) !== undefined)).toBe(false);
    }
  });
});
