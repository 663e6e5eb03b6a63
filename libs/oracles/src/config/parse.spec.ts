import { describe, expect, it } from 'vitest';
import { ConfigCompileError, formatConfigIssues } from './issues.js';
import { compileHooksConfig } from './compile.js';
import { parseHooksConfig } from './parse.js';
import { validateHooksConfig } from './validate.js';

/** Joins lines, so that line numbers in the tests are easy to count. */
const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

function issuesOf(source: string) {
  const result = validateHooksConfig(source);
  if (result.ok) throw new Error('expected the configuration to be rejected');
  return result.issues;
}

describe('parseHooksConfig', () => {
  it('accepts the original design example configuration verbatim', () => {
    const source = yaml(
      '# .ahp/hooks.yaml',
      '',
      'hooks:',
      '  pre-issue-submit:',
      '    # 触发器：提交前',
      '    trigger: pre-issue-submit',
      '    ',
      '    # 预言机列表（按顺序执行）',
      '    oracles:',
      '      - name: checklist-validator',
      '        # 生成信号的条件和强度',
      '        rules:',
      '          - condition: "checklist.incomplete_count > 0"',
      '            intensity: block',
      '            message: "Checklist 未完成"',
      '            ',
      '          - condition: "checklist.incomplete_count > 0 and checklist.completion_rate > 0.8"',
      '            intensity: prompt',
      '            message: "大部分已完成，确认提交？"',
      '            ',
      '      - name: change-size-limiter',
      '        rules:',
      '          - condition: "files.changed_count > 20"',
      '            intensity: control',
      '            action: ',
      '              type: split_suggestion',
      '              max_batch: 10',
      '              ',
      '      - name: test-gate',
      '        rules:',
      '          - condition: "tests.failed_count > 0"',
      '            intensity: block',
      '            message: "测试未通过"',
      '            ',
      '          - condition: "coverage.current < coverage.threshold"',
      '            intensity: prompt',
      '            message: "覆盖率低于阈值"',
    );
    const parsed = parseHooksConfig(source);
    expect(parsed.ok).toBe(true);
    const validated = validateHooksConfig(source);
    expect(validated.ok).toBe(true);
    if (validated.ok) expect(validated.compiled.triggers).toEqual(['pre-issue-submit']);
  });

  it('reports a YAML syntax error with its line', () => {
    const issues = issuesOf(yaml('hooks:', '  pre-tool-use:', '    oracles: [', '      - name: x'));
    expect(issues[0]).toMatchObject({ path: '' });
    expect(issues[0]!.message).toMatch(/^YAML syntax error: /);
    expect(issues[0]!.line).toBeGreaterThanOrEqual(3);
  });

  it('reports a tab-indented or duplicate-key file', () => {
    const duplicate = issuesOf(yaml('hooks:', '  pre-tool-use:', '    oracles: []', '  pre-tool-use:', '    oracles: []'));
    expect(duplicate[0]).toMatchObject({ line: 4, column: 3 });
    expect(duplicate[0]!.message).toMatch(/unique/);
  });

  it('rejects an empty file and a file that is not a mapping', () => {
    expect(issuesOf('')[0]).toMatchObject({ line: 1, message: 'the file is empty: expected a mapping with "hooks"' });
    expect(issuesOf('- a\n')[0]).toMatchObject({ line: 1, path: '' });
  });

  it('names the line, column and field of a wrong type deep in the tree', () => {
    const issues = issuesOf(
      yaml(
        'hooks:',
        '  pre-issue-submit:',
        '    oracles:',
        '      - name: change-size-limiter',
        '        rules:',
        '          - condition: "files.changed_count > 20"',
        '            intensity: control',
        '            action:',
        '              type: split_suggestion',
        '              max_batch: "ten"',
      ),
    );
    expect(issues).toEqual([
      {
        line: 10,
        column: 26,
        path: 'hooks.pre-issue-submit.oracles[0].rules[0].action.max_batch',
        message: expect.stringMatching(/expected int|expected number/i),
      },
    ]);
  });

  it('names an unknown intensity', () => {
    const issues = issuesOf(yaml('hooks:', '  pre-issue-submit:', '    oracles:', '      - name: gate', '        rules:', '          - condition: "x > 1"', '            intensity: warn'));
    expect(issues[0]).toMatchObject({ line: 7, column: 24, path: 'hooks.pre-issue-submit.oracles[0].rules[0].intensity' });
    expect(issues[0]!.message).toMatch(/block.*control.*prompt.*aid/);
  });

  it('names an intensity the trigger does not allow', () => {
    const issues = issuesOf(yaml('hooks:', '  pre-tool-use:', '    oracles:', '      - name: guard', '        rules:', '          - condition: "tool.name == \'Bash\'"', '            intensity: prompt'));
    expect(issues).toEqual([
      {
        line: 7,
        column: 24,
        path: 'hooks.pre-tool-use.oracles[0].rules[0].intensity',
        message: 'intensity "prompt" is not allowed at pre-tool-use (allowed: block, control)',
      },
    ]);
  });

  it('names an escalation step the trigger does not allow', () => {
    const issues = issuesOf(
      yaml('hooks:', '  pre-issue-close:', '    oracles:', '      - name: gate', '        rules:', '          - condition: "x"', '            escalation: [prompt, block]'),
    );
    expect(issues[0]).toMatchObject({ line: 7, column: 26, path: 'hooks.pre-issue-close.oracles[0].rules[0].escalation[0]' });
  });

  it('points at an unknown field and an unknown trigger by their key', () => {
    const unknownField = issuesOf(yaml('hooks:', '  pre-tool-use:', '    oracles:', '      - name: guard', '        rulez: []'));
    expect(unknownField[0]).toEqual({ line: 5, column: 9, path: 'hooks.pre-tool-use.oracles[0].rulez', message: 'unknown field "rulez"' });
    const unknownTrigger = issuesOf(yaml('hooks:', '  pre-deploy:', '    oracles: []'));
    expect(unknownTrigger[0]).toMatchObject({ line: 2, column: 3, path: 'hooks.pre-deploy' });
    expect(unknownTrigger[0]!.message).toMatch(/^unknown trigger "pre-deploy"/);
  });

  it('points a missing field at the mapping that lacks it', () => {
    const issues = issuesOf(yaml('hooks:', '  pre-tool-use:', '    oracles:', '      - name: guard', '        rules:', '          - intensity: block'));
    expect(issues[0]).toMatchObject({ line: 6, column: 13, path: 'hooks.pre-tool-use.oracles[0].rules[0].condition' });
  });

  it('points at the character of a bad expression, in every scalar style', () => {
    const rule = (condition: string[]) =>
      yaml('hooks:', '  pre-issue-submit:', '    oracles:', '      - name: gate', '        rules:', ...condition, '            intensity: block');
    const plain = issuesOf(rule(['          - condition: files.changed_count >> 20']));
    expect(plain[0]).toMatchObject({ line: 6, column: 45, path: 'hooks.pre-issue-submit.oracles[0].rules[0].condition' });
    expect(plain[0]!.message).toMatch(/^invalid expression: unexpected ">": expected a value \(at character 22\)$/);
    const double = issuesOf(rule(['          - condition: "checklist.incomplete_count > 0 and or x"']));
    expect(double[0]).toMatchObject({ line: 6, column: 60 });
    const single = issuesOf(rule(["          - condition: 'a.__proto__'"]));
    expect(single[0]).toMatchObject({ line: 6, column: 27 });
    expect(single[0]!.message).toMatch(/"__proto__" cannot be read/);
    const block = issuesOf(rule(['          - condition: |', '              files.changed_count > 20', '                and coverage.current <', '            ']));
    expect(block[0]).toMatchObject({ line: 8, column: 39 });
    // Escapes shift the characters: then the scalar's start is reported.
    const escaped = issuesOf(rule(['          - condition: "\\u0061 >"']));
    expect(escaped[0]).toMatchObject({ line: 6, column: 24 });
  });

  it('points at the character of a bad template expression', () => {
    const issues = issuesOf(
      yaml('hooks:', '  post-issue-submit:', '    oracles:', '      - name: note', '        rules:', '          - condition: "true"', '            intensity: aid', '            message: "done in {{ hours + 1 }} h"'),
    );
    expect(issues[0]).toMatchObject({ line: 8, column: 40, path: 'hooks.post-issue-submit.oracles[0].rules[0].message' });
    expect(issues[0]!.message).toMatch(/^invalid template: unexpected character "\+"/);
  });

  it('reports several problems at once', () => {
    const issues = issuesOf(
      yaml(
        'hooks:',
        '  pre-issue-submit:',
        '    oracles:',
        '      - name: gate',
        '        rules:',
        '          - condition: "a >"',
        '            intensity: block',
        '          - condition: "b <"',
        '            intensity: block',
        '      - name: checklist-validater',
        '        rules:',
        '          - condition: "true"',
        '            intensity: block',
      ),
    );
    expect(issues.map((i) => [i.line, i.path])).toEqual([
      [6, 'hooks.pre-issue-submit.oracles[0].rules[0].condition'],
      [8, 'hooks.pre-issue-submit.oracles[0].rules[1].condition'],
      [10, 'hooks.pre-issue-submit.oracles[1].name'],
    ]);
    expect(issues[2]!.message).toBe(
      '"checklist-validater" is not an oracle; did you mean "checklist-validator"? (for a rules-only oracle with this name, add `use: rules`)',
    );
  });

  it('formats issues compiler style', () => {
    const issues = issuesOf(yaml('hooks:', '  pre-deploy:', '    oracles: []'));
    expect(formatConfigIssues(issues)).toMatch(/^\.ahp\/hooks\.yaml:2:3: hooks\.pre-deploy: unknown trigger "pre-deploy"/);
    expect(formatConfigIssues([{ line: 0, column: 0, path: '', message: 'm' }], 'x.yaml')).toBe('x.yaml: m');
  });

  it('refuses alias bombs', () => {
    const bomb = yaml(
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'hooks: {}',
    );
    expect(issuesOf(bomb)[0]!.message).toMatch(/YAML/);
  });

  it('rejects __proto__ keys in free-form options', () => {
    const issues = issuesOf(yaml('hooks:', '  pre-tool-use:', '    oracles:', '      - name: permission-check', '        options:', '          __proto__: { polluted: true }'));
    expect(issues[0]).toMatchObject({ line: 6, path: 'hooks.pre-tool-use.oracles[0].options.__proto__' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('compileHooksConfig on a value without text', () => {
  it('throws ConfigCompileError with line 0', () => {
    const config = { hooks: { 'pre-tool-use': { oracles: [{ name: 'guard', rules: [{ condition: 'a >', intensity: 'block' }] }] } } };
    let thrown: unknown;
    try {
      compileHooksConfig(config as never, { version: 4 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigCompileError);
    expect((thrown as ConfigCompileError).issues).toEqual([
      {
        line: 0,
        column: 0,
        path: 'hooks.pre-tool-use.oracles[0].rules[0].condition',
        message: 'invalid expression: unexpected end of the expression: expected a value (at character 4)',
      },
    ]);
    expect((thrown as Error).message).toMatch(/^invalid hooks configuration: hooks\.pre-tool-use\.oracles\[0\]\.rules\[0\]\.condition: /);
  });

  it('validates the value with the schema first', () => {
    expect(() => compileHooksConfig({ hooks: { 'pre-tool-use': { oracles: [{ name: 'x', rules: [{ condition: 'a', intensity: 'prompt' }] }] } } } as never, { version: 1 })).toThrow(
      /intensity "prompt" is not allowed at pre-tool-use/,
    );
  });
});

describe('the notifications section', () => {
  const source = (...channelLines: string[]) =>
    yaml(
      'hooks: {}',
      'notifications:',
      '  channels:',
      ...channelLines,
      '  routes:',
      '    - types: [tool_approval]',
      '      channels: [on-call, pager]',
    );

  it('is validated with the rest, each problem at its line and column', () => {
    const issues = issuesOf(
      source(
        '    on-call:',
        '      type: webhook',
        '      url: ftp://hooks.example.com/ahp',
        '      secret_env: AHP_WEBHOOK_SECRET',
        '      secret: hunter2',
      ),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { line: 6, column: 12, path: 'notifications.channels.on-call.url', message: 'must be an absolute http:// or https:// URL without a user name or password' },
        { line: 8, column: 7, path: 'notifications.channels.on-call.secret', message: 'unknown field "secret"' },
        { line: 11, column: 27, path: 'notifications.routes[0].channels[1]', message: 'unknown channel "pager" (defined: on-call)' },
      ]),
    );
  });

  it('a valid section compiles with the hooks', () => {
    const result = validateHooksConfig(
      yaml(
        'hooks: {}',
        'notifications:',
        '  channels:',
        '    on-call: { type: webhook, url: "https://hooks.example.com/ahp", secret_env: AHP_WEBHOOK_SECRET }',
        '  routes:',
        '    - channels: [on-call]',
      ),
    );
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.config.notifications?.channels['on-call']).toEqual({ type: 'webhook', url: 'https://hooks.example.com/ahp', secret_env: 'AHP_WEBHOOK_SECRET' });
  });
});
