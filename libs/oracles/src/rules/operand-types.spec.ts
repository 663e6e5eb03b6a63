/**
 * Failing closed on values of the wrong type (audit finding 5): a field that is present, but not
 * of the type the rule's operator reads, decides nothing — like an absent one.
 */
import { HookDecisionSchema } from '@ahp/protocol';
import type { JsonObject } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { deps, hookInput } from '../../test/helpers.js';
import { validateHooksConfig } from '../config/validate.js';
import type { CompiledHooks } from '../config/compile.js';

function compile(source: string): CompiledHooks {
  const result = validateHooksConfig(source, { version: 1 });
  if (!result.ok) throw new Error(result.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).join('\n'));
  return result.compiled;
}

async function run(compiled: CompiledHooks, context: JsonObject) {
  const decision = await compiled.evaluate(hookInput('pre-tool-use', context), deps());
  expect(HookDecisionSchema.safeParse(decision).success).toBe(true);
  return decision;
}

const exec = (input: JsonObject): JsonObject => ({ tool: { name: 'mcp__ops__exec', input } });

const SHELL = compile(`
hooks:
  pre-tool-use:
    oracles:
      - name: shell
        rules:
          - id: no-rm-rf
            condition: 'tool.name == "mcp__ops__exec" and tool.input.command matches /rm\\s+-rf/'
            intensity: block
          - id: no-prod
            condition: 'tool.name == "mcp__ops__exec" and tool.input.env == "prod"'
            intensity: block
`);

describe('a restricting rule meeting a value of the wrong type fails closed (E_INVALID_CONTEXT)', () => {
  it.each([
    ['a one-element list where "matches" reads a string', { command: ['rm -rf /srv'], env: 'dev' }, 'tool.input.command is a list, and "matches" needs a string'],
    ['an argv list where "matches" reads a string', { command: ['rm', '-rf', '/srv'], env: 'dev' }, 'tool.input.command is a list'],
    ['a list compared with == to a string', { command: 'ls', env: ['prod'] }, 'tool.input.env (a list) == "prod" (a string)'],
    ['an object where "matches" reads a string', { command: { run: 'rm -rf /' }, env: 'dev' }, 'tool.input.command is an object'],
    ['a number where "matches" reads a string', { command: 7, env: 'dev' }, 'tool.input.command is a number'],
  ])('%s', async (_, input, problem) => {
    const decision = await run(SHELL, exec(input as JsonObject));
    expect(decision).toMatchObject({ allowed: false, decided_by: 'failure_policy', error: { code: 'E_INVALID_CONTEXT' } });
    expect(decision.error?.message).toContain(problem);
  });

  it('strings still decide as before: a match blocks, no match allows', async () => {
    expect(await run(SHELL, exec({ command: 'rm -rf /srv', env: 'dev' }))).toMatchObject({ allowed: false, decided_by: 'oracles' });
    expect(await run(SHELL, exec({ command: 'ls', env: 'prod' }))).toMatchObject({ allowed: false, decided_by: 'oracles' });
    expect(await run(SHELL, exec({ command: 'ls', env: 'dev' }))).toMatchObject({ allowed: true });
  });

  it('a rule whose condition holds anyway still blocks; a value not read ("and" stopped) is no problem', async () => {
    expect(await run(SHELL, exec({ command: 'rm -rf /', env: 'dev' }))).toMatchObject({ allowed: false, decided_by: 'oracles' });
    // no-rm-rf matches; no-prod cannot read env: the oracle fails closed as a whole, still a block.
    expect(await run(SHELL, exec({ command: 'rm -rf /', env: ['prod'] }))).toMatchObject({ allowed: false });
    expect(await run(SHELL, { tool: { name: 'Read', input: { command: ['x'], env: ['prod'] } } })).toMatchObject({ allowed: true });
  });

  it('shell_join() reads an argv list as the line a shell would split back into it', async () => {
    const joined = compile(`
hooks:
  pre-tool-use:
    oracles:
      - name: shell
        rules:
          - { id: no-rm-rf, condition: 'tool.name == "shell" and shell_join(tool.input.command) matches /rm\\s+-rf/', intensity: block }
`);
    expect(await run(joined, { tool: { name: 'shell', input: { command: ['rm', '-rf', '/srv'] } } })).toMatchObject({ allowed: false, decided_by: 'oracles' });
    expect(await run(joined, { tool: { name: 'shell', input: { command: 'rm -rf /srv' } } })).toMatchObject({ allowed: false, decided_by: 'oracles' });
    expect(await run(joined, { tool: { name: 'shell', input: { command: ['ls', '-la'] } } })).toMatchObject({ allowed: true });
    expect(await run(joined, { tool: { name: 'shell', input: { command: ['ls', 3] } } })).toMatchObject({ allowed: false, error: { code: 'E_INVALID_CONTEXT' } });
  });

  it('a rule that cannot restrict (aid) is not failed closed', async () => {
    const advice = compile(`
hooks:
  post-tool-use:
    oracles:
      - name: notes
        rules:
          - { id: noted, condition: 'tool.input.command matches /x/', intensity: aid, message: "noted" }
`);
    const decision = await advice.evaluate(hookInput('post-tool-use', { tool: { name: 'x', input: { command: ['x'] }, output: 'ok' } }), deps());
    expect(decision).toMatchObject({ allowed: true, intensity: null });
  });
});

const WORKSPACE = compile(`
hooks:
  pre-tool-use:
    oracles:
      - name: workspace
        rules:
          - id: writes-stay-in-workspace
            condition: 'tool.name in ["Write", "Edit"] and not (tool.input.file_path startswith "/work/project/")'
            intensity: block
          - id: no-etc
            condition: 'tool.name in ["Write", "Edit"] and tool.input.file_path startswith "/etc/"'
            intensity: block
`);

const write = (file_path: string): JsonObject => ({ tool: { name: 'Write', input: { file_path, content: 'x' } } });

describe('paths: a prefix test on a path that is not in normal form fails closed', () => {
  it.each(['/work/project/../../etc/cron.d/x', '/work/project/./../../etc/x', '//etc/cron.d/x', '/work/project//x/../../../etc/x'])('%s', async (path) => {
    const decision = await run(WORKSPACE, write(path));
    expect(decision.allowed).toBe(false);
  });

  it('the ".." escape names the rule and the remedy', async () => {
    const decision = await run(WORKSPACE, write('/work/project/../../etc/cron.d/x'));
    expect(decision).toMatchObject({ decided_by: 'failure_policy', error: { code: 'E_INVALID_CONTEXT' } });
    expect(decision.error?.message).toContain('path_normalize');
  });

  it('paths in normal form decide as before', async () => {
    expect(await run(WORKSPACE, write('/work/project/src/a.ts'))).toMatchObject({ allowed: true });
    expect(await run(WORKSPACE, write('/etc/cron.d/x'))).toMatchObject({ allowed: false, decided_by: 'oracles' });
    expect(await run(WORKSPACE, write('/tmp/x'))).toMatchObject({ allowed: false, decided_by: 'oracles' });
  });

  it('path_normalize() lets a rule decide on where the path leads', async () => {
    const normal = compile(`
hooks:
  pre-tool-use:
    oracles:
      - name: workspace
        rules:
          - id: writes-stay-in-workspace
            condition: 'tool.name == "Write" and not (path_normalize(tool.input.file_path) startswith "/work/project/")'
            intensity: block
`);
    expect(await run(normal, write('/work/project/../../etc/cron.d/x'))).toMatchObject({ allowed: false, decided_by: 'oracles' });
    expect(await run(normal, write('/work/project/a/../b.ts'))).toMatchObject({ allowed: true });
  });
});
