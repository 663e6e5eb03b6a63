import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OracleSetupError } from './errors.js';
import { evaluateHook } from './evaluate.js';
import type { Oracle } from './oracle.js';
import { combineOracles, loadOraclePlugins } from './plugins.js';

let dir: string;

const MODULES: Record<string, string> = {
  'single.mjs': `
    export default {
      name: 'acme/no-deploy-friday',
      triggers: ['pre-tool-use'],
      evaluate(input) {
        if (input.context.tool?.name !== 'Deploy') return [];
        return [{ intensity: 'block', rule: 'friday', payload: {
          level: 'blocking', decision: 'deny', reason: 'no deploys today', resolvable: true, resolution_path: ['wait for Monday'],
        } }];
      },
    };`,
  'array.mjs': `
    const a = { name: 'a', evaluate: () => [] };
    const b = { name: 'b', evaluate: async () => [] };
    export default [a, b];`,
  'named.mjs': `
    export const oracle = { name: 'named-one', evaluate: () => [] };
    export const oracles = [oracle, { name: 'named-two', evaluate: () => [] }];`,
  'nothing.mjs': `export const helper = 1; export function other() {}`,
  'empty.mjs': `export const oracles = [];`,
  'no-evaluate.mjs': `export default { name: 'lazy' };`,
  'bad-name.mjs': `export default { name: 'Bad Name', evaluate: () => [] };`,
  'bad-trigger.mjs': `export default { name: 'x', triggers: ['pre-tool-use', 'before-lunch'], evaluate: () => [] };`,
  'no-triggers.mjs': `export default { name: 'x', triggers: [], evaluate: () => [] };`,
  'triggers-not-array.mjs': `export default { name: 'x', triggers: 'pre-tool-use', evaluate: () => [] };`,
  'not-object.mjs': `export default [() => []];`,
  'throws.mjs': `throw new Error('plugin exploded at import');`,
  'syntax.mjs': `export default {`,
  'dup-a.mjs': `export default { name: 'same', evaluate: () => [] };`,
  'dup-b.mjs': `export default { name: 'same', evaluate: () => [] };`,
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-oracle-plugins-'));
  await Promise.all(Object.entries(MODULES).map(([file, source]) => writeFile(join(dir, file), source)));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function loadError(specifiers: string[]): Promise<OracleSetupError> {
  const error: unknown = await loadOraclePlugins(specifiers, { baseDir: dir }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OracleSetupError);
  return error as OracleSetupError;
}

describe('loadOraclePlugins', () => {
  it('loads a default export from an absolute path and the oracle works', async () => {
    const [oracle, ...rest] = await loadOraclePlugins([join(dir, 'single.mjs')]);
    expect(rest).toEqual([]);
    expect(oracle!.name).toBe('acme/no-deploy-friday');
    const decision = await evaluateHook({
      input: {
        hookId: '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b',
        trigger: 'pre-tool-use',
        context: { tool: { name: 'Deploy', input: {} } },
        agent: { id: 'agent-1', name: 'Agent One' },
        sessionId: 'session-1',
      },
      oracles: [oracle!],
      now: () => new Date('2025-01-03T12:00:00.000Z'),
      newId: () => '00000000-0000-4000-8000-000000000001',
      budgetMs: 1000,
    });
    expect(decision).toMatchObject({ allowed: false, decided_by: 'oracles' });
    expect(decision.signals[0]!.header.source).toBe('acme/no-deploy-friday');
    expect(decision.signals[0]!.context).toMatchObject({ rule: 'friday' });
  });

  it('loads arrays, named exports, relative paths and file URLs, in order and without duplicates', async () => {
    const oracles = await loadOraclePlugins(['./array.mjs', pathToFileURL(join(dir, 'named.mjs')).href], { baseDir: dir });
    expect(oracles.map((o) => o.name)).toEqual(['a', 'b', 'named-one', 'named-two']);
  });

  it('loads nothing for no specifiers', async () => {
    await expect(loadOraclePlugins([])).resolves.toEqual([]);
  });

  it('names the module and its exports when it exports no oracle', async () => {
    const error = await loadError(['./nothing.mjs']);
    expect(error.code).toBe('E_PLUGIN_SHAPE');
    expect(error.module).toBe('./nothing.mjs');
    expect(error.message).toBe(
      'oracle plugin "./nothing.mjs" exports no oracle: expected a default export, "oracles" or "oracle" (it exports "helper", "other")',
    );
  });

  it('resolves package specifiers like an import would', async () => {
    const error = await loadError(['@ahp/protocol']);
    expect(error.code).toBe('E_PLUGIN_SHAPE');
    expect(error.message).toContain('oracle plugin "@ahp/protocol" exports no oracle');
  });

  it.each([
    ['empty.mjs', 'export "oracles" is an empty array'],
    ['no-evaluate.mjs', 'export "default" is not an oracle: oracle "lazy": "evaluate" must be a function, got undefined'],
    ['bad-name.mjs', '"name" "Bad Name" must be at most 128 characters'],
    ['bad-trigger.mjs', 'unknown trigger(s) "before-lunch"'],
    ['no-triggers.mjs', '"triggers" is empty'],
    ['triggers-not-array.mjs', '"triggers" must be an array'],
    ['not-object.mjs', 'export "default[0]" is not an oracle: expected an object, got function'],
  ])('rejects %s', async (file, message) => {
    const error = await loadError([`./${file}`]);
    expect(error.code).toBe('E_PLUGIN_SHAPE');
    expect(error.module).toBe(`./${file}`);
    expect(error.message).toContain(`oracle plugin "./${file}"`);
    expect(error.message).toContain(message);
  });

  it.each([
    ['throws.mjs', 'plugin exploded at import'],
    ['syntax.mjs', ''],
    ['missing.mjs', ''],
  ])('reports %s as a load error naming the module', async (file, message) => {
    const error = await loadError([`./${file}`]);
    expect(error.code).toBe('E_PLUGIN_LOAD');
    expect(error.module).toBe(`./${file}`);
    expect(error.message).toMatch(new RegExp(`^oracle plugin "\\./${file.replace('.', '\\.')}" could not be loaded: `));
    expect(error.message).toContain(message);
    expect(error.cause).toBeDefined();
  });

  it('rejects an empty specifier', async () => {
    const error = await loadError(['  ']);
    expect(error.code).toBe('E_PLUGIN_LOAD');
  });

  it('rejects two oracles with one name across modules', async () => {
    const error = await loadError(['./dup-a.mjs', './dup-b.mjs']);
    expect(error.code).toBe('E_DUPLICATE_ORACLE');
    expect(error.module).toBe('./dup-b.mjs');
    expect(error.message).toContain('oracle "same" is also exported by "./dup-a.mjs"');
  });
});

describe('combineOracles', () => {
  const oracle = (name: string): Oracle => ({ name, evaluate: () => [] });

  it('concatenates lists in order', () => {
    expect(combineOracles([oracle('a')], [], [oracle('b'), oracle('c')]).map((o) => o.name)).toEqual(['a', 'b', 'c']);
  });

  it('rejects duplicate names', () => {
    expect(() => combineOracles([oracle('permission-check')], [oracle('permission-check')])).toThrow(
      expect.objectContaining({ code: 'E_DUPLICATE_ORACLE', message: expect.stringContaining('"permission-check"') }),
    );
  });
});
