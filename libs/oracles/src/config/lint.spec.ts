/**
 * Lint warnings (lint.ts) through `validateHooksConfig`, as `ahp config validate` and the operator
 * API see them: each kind with a configuration that has it and one that must not.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Oracle } from '../oracle.js';
import type { ConfigWarning } from './lint.js';
import { validateHooksConfig } from './validate.js';

const root = new URL('../../../../', import.meta.url);
const read = (path: string) => readFileSync(fileURLToPath(new URL(path, root)), 'utf8');

function warnings(source: string, plugins?: readonly Oracle[]): ConfigWarning[] {
  const result = validateHooksConfig(source, plugins === undefined ? {} : { plugins });
  if (!result.ok) throw new Error(result.issues.map((issue) => `${issue.line}:${issue.column} ${issue.path}: ${issue.message}`).join('\n'));
  return result.warnings;
}

const ofKind = (list: readonly ConfigWarning[], kind: ConfigWarning['kind']) => list.filter((warning) => warning.kind === kind);

describe('lint: the repository configurations', () => {
  it.each(['.ahp/hooks.yaml', 'libs/oracles/test/hooks.cel.yaml'])('%s has no warning of any kind', (path) => {
    expect(warnings(read(path))).toEqual([]);
  });
});

describe('lint: a trigger that can never deny', () => {
  it('warns when no oracle of pre-tool-use can block or ask for approval, at the hook key', () => {
    const source = [
      'hooks:',
      '  pre-tool-use:',
      '    oracles:',
      '      - name: audit',
      '        rules:',
      '          - id: shell',
      '            condition: tool.name == "bash"',
      '            intensity: control',
      '            action: { type: set, target: timeout, value: 30 }',
      '',
    ].join('\n');
    expect(warnings(source)).toEqual([
      {
        kind: 'never-denies',
        subject: 'pre-tool-use',
        line: 2,
        column: 3,
        path: 'hooks.pre-tool-use',
        message: 'pre-tool-use can never deny anything: none of its enabled oracles can block or ask for approval (only its failure policy can)',
      },
    ]);
  });

  it('counts only enabled oracles', () => {
    const source = 'hooks:\n  stop:\n    oracles:\n      - name: gate\n        enabled: false\n        rules:\n          - condition: "true"\n            intensity: block\n';
    expect(ofKind(warnings(source), 'never-denies').map((w) => w.subject)).toEqual(['stop']);
  });

  it('does not warn when a rule blocks, escalates to block, an override blocks, or asks for approval', () => {
    const hook = (rule: string) => `hooks:\n  pre-tool-use:\n    oracles:\n      - name: gate\n        rules:\n          - condition: tool.name == "bash"\n${rule}`;
    expect(ofKind(warnings(hook('            intensity: block\n')), 'never-denies')).toEqual([]);
    expect(ofKind(warnings(hook('            escalation: [control, block]\n            action: { type: set, target: t, value: 1 }\n')), 'never-denies')).toEqual([]);
    expect(
      ofKind(
        warnings(hook('            intensity: control\n            action: { type: set, target: t, value: 1 }\n            overrides:\n              - when: env == "production"\n                intensity: block\n')),
        'never-denies',
      ),
    ).toEqual([]);
    expect(ofKind(warnings(hook('            require_approval: {}\n')), 'never-denies')).toEqual([]);
  });

  it('does not warn for built-ins with logic of their own, quality gates on their default rules, plugins, or triggers that cannot block', () => {
    expect(warnings('hooks:\n  pre-tool-use:\n    oracles:\n      - name: circuit-breaker\n')).toEqual([]);
    expect(warnings('hooks:\n  pre-issue-submit:\n    oracles:\n      - name: test-gate\n')).toEqual([]);
    const plugin: Oracle = { name: 'acme/scan', triggers: ['pre-tool-use'], evaluate: async () => [] };
    expect(warnings('hooks:\n  pre-tool-use:\n    oracles:\n      - name: acme/scan\n', [plugin])).toEqual([]);
    expect(warnings('hooks:\n  post-tool-use:\n    oracles:\n      - name: notes\n        rules:\n          - condition: "true"\n            intensity: aid\n')).toEqual([]);
  });
});

describe('lint: a rule that reads a field its trigger never has', () => {
  it('names the rule and the field, at the read inside the condition (native language)', () => {
    const source = [
      'hooks:',
      '  user-prompt-submit:',
      '    oracles:',
      '      - name: prompts',
      '        rules:',
      '          - id: no-rm',
      `            condition: 'prompt contains "rm" and tool.input.command contains "rm"'`,
      '            intensity: block',
      '',
    ].join('\n');
    expect(warnings(source)).toEqual([
      {
        kind: 'unknown-field',
        subject: 'user-prompt-submit/prompts/no-rm',
        line: 7,
        column: 50,
        path: 'hooks.user-prompt-submit.oracles[0].rules[0].condition',
        message: 'user-prompt-submit/prompts/no-rm can never match: it reads tool.input.command, which the user-prompt-submit context never has',
      },
    ]);
  });

  it('follows strict objects below the top level, and the context. prefix, and override expressions', () => {
    const source = [
      'hooks:',
      '  pre-tool-use:',
      '    oracles:',
      '      - name: gate',
      '        rules:',
      '          - id: output',
      '            condition: context.tool.output contains "x"',
      '            intensity: block',
      '            overrides:',
      '              - when: files.changed_count > 3',
      '                intensity: block',
      '',
    ].join('\n');
    expect(ofKind(warnings(source), 'unknown-field').map((w) => [w.path, w.message.split(': ')[1]])).toEqual([
      ['hooks.pre-tool-use.oracles[0].rules[0].condition', 'it reads tool.output, which the pre-tool-use context never has'],
      ['hooks.pre-tool-use.oracles[0].rules[0].overrides[0].when', 'it reads files.changed_count, which the pre-tool-use context never has'],
    ]);
  });

  it('reads CEL trees: selects, has(), and not the variables a comprehension binds', () => {
    const source = [
      'lang: cel',
      'hooks:',
      '  stop:',
      '    oracles:',
      '      - name: gate',
      '        rules:',
      '          - id: tool',
      '            condition: has(tool.name) && tests.failed.exists(t, t.name == "x")',
      '            intensity: block',
      '',
    ].join('\n');
    const found = ofKind(warnings(source), 'unknown-field');
    expect(found.map((w) => w.message)).toEqual(['stop/gate/tool can never match: it reads tool.name, which the stop context never has']);
    expect(found[0]).toMatchObject({ line: 8, column: 28 });
  });

  it('stays silent on fields the context has, free-form areas, reserved names and computed indexes', () => {
    const source = [
      'hooks:',
      '  pre-tool-use:',
      '    oracles:',
      '      - name: gate',
      '        rules:',
      '          - condition: tool.input.anything.deep == 1 and extra.ticket == "x" and agent.team == "a" and env == "p" and params.x == 1 and tool["name"] == "y" and client.kind == "codex"',
      '            intensity: block',
      '            params: { x: 1 }',
      '          - condition: tool.input.command.size() > 3 && has(mcp.server)',
      '            lang: cel',
      '            intensity: block',
      '',
    ].join('\n');
    expect(ofKind(warnings(source), 'unknown-field')).toEqual([]);
  });
});

describe('lint: rules shadowed by an earlier rule', () => {
  const oracle = (match: string, rules: string[]) =>
    `hooks:\n  pre-tool-use:\n    oracles:\n      - name: gate\n${match === '' ? '' : `        match: ${match}\n`}        rules:\n${rules.join('')}`;
  const rule = (id: string, condition: string, rest = '            intensity: block\n') => `          - id: ${id}\n            condition: '${condition}'\n${rest}`;

  it('warns for a later rule after an always-true block, and after the same condition written differently', () => {
    const list = ofKind(
      warnings(oracle('', [rule('all', 'true'), rule('later', 'tool.name == "bash"'), rule('again', 'tool.name=="bash"')])),
      'shadowed-rule',
    );
    expect(list.map((w) => [w.subject, w.line])).toEqual([
      ['pre-tool-use/gate/later', 10],
      ['pre-tool-use/gate/again', 13],
    ]);
    expect(list[0]?.message).toBe('pre-tool-use/gate/later is shadowed by the earlier rule pre-tool-use/gate/all (its condition is always true, and it always blocks): it can never decide anything');
    const same = ofKind(warnings(oracle('', [rule('one', 'tool.name == "bash"'), rule('two', '(tool.name  ==  "bash")')])), 'shadowed-rule');
    expect(same.map((w) => w.message)).toEqual([
      'pre-tool-use/gate/two is shadowed by the earlier rule pre-tool-use/gate/one (its condition is the same, and it always blocks): it can never decide anything',
    ]);
  });

  it('under match: first, any earlier rule with the same condition shadows', () => {
    const control = '            intensity: control\n            action: { type: set, target: t, value: 1 }\n';
    const list = ofKind(warnings(oracle('first', [rule('one', 'tool.name == "bash"', control), rule('two', 'tool.name == "bash"')])), 'shadowed-rule');
    expect(list.map((w) => w.subject)).toEqual(['pre-tool-use/gate/two']);
  });

  it('does not warn when the earlier rule is not decisive, differs, has overrides or other params, or the language differs', () => {
    const control = '            intensity: control\n            action: { type: set, target: t, value: 1 }\n';
    expect(ofKind(warnings(oracle('', [rule('one', 'tool.name == "bash"', control), rule('two', 'tool.name == "bash"')])), 'shadowed-rule')).toEqual([]);
    expect(ofKind(warnings(oracle('', [rule('one', 'tool.name == "bash"'), rule('two', 'tool.name == "sh"')])), 'shadowed-rule')).toEqual([]);
    expect(ofKind(warnings(oracle('', [rule('one', 'tool.name == "bash" and tool.input.x == 1'), rule('two', 'tool.name == "bash"')])), 'shadowed-rule')).toEqual([]);
    const overridden = '            intensity: block\n            overrides:\n              - when: env == "dev"\n                condition: "false"\n';
    expect(ofKind(warnings(oracle('', [rule('one', 'true', overridden), rule('two', 'tool.name == "bash"')])), 'shadowed-rule')).toEqual([]);
    const params = (n: number) => `            intensity: block\n            params: { n: ${n} }\n`;
    expect(ofKind(warnings(oracle('', [rule('one', 'len(tool.input) > params.n', params(1)), rule('two', 'len(tool.input) > params.n', params(2))])), 'shadowed-rule')).toEqual([]);
    const escalating = '            escalation: [control, block]\n            action: { type: set, target: t, value: 1 }\n';
    expect(ofKind(warnings(oracle('', [rule('one', 'true', escalating), rule('two', 'tool.name == "bash"')])), 'shadowed-rule')).toEqual([]);
    const cel = '            lang: cel\n            intensity: block\n';
    expect(ofKind(warnings(oracle('', [rule('one', 'tool.name == "bash"', cel), rule('two', 'tool.name == "bash"')])), 'shadowed-rule')).toEqual([]);
  });

  it('normalises CEL conditions', () => {
    const cel = '            lang: cel\n            intensity: block\n';
    const list = ofKind(warnings(oracle('', [rule('one', 'tool.name == "bash"', cel), rule('two', 'tool.name=="bash"', cel)])), 'shadowed-rule');
    expect(list.map((w) => w.subject)).toEqual(['pre-tool-use/gate/two']);
  });
});
