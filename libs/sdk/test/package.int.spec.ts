/**
 * The SDK as others install it: `npm pack` of @ahp/protocol and @ahp/sdk, installed from the
 * tarballs into an empty project outside the workspace (dependencies from the npm cache or the
 * registry), then the README's quick start type-checked against the installed types and the
 * package imported by Node through its `exports` map — no workspace links, no sources.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const WORKSPACE = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = join(WORKSPACE, 'node_modules', 'typescript', 'bin', 'tsc');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-sdk-package-'));
  await run('npm', ['pack', '--silent', '--pack-destination', dir, join(WORKSPACE, 'libs/protocol'), join(WORKSPACE, 'libs/sdk')], { cwd: dir });
  const tarballs = (await readdir(dir)).filter((name) => name.endsWith('.tgz')).sort();
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'sdk-consumer', version: '1.0.0', private: true, type: 'module', dependencies: Object.fromEntries(tarballs.map((t) => [t.startsWith('ahp-sdk') ? '@ahp/sdk' : '@ahp/protocol', `file:./${t}`])) }),
  );
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', '--ignore-scripts'], { cwd: dir, timeout: 120_000 });
}, 180_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the published SDK', () => {
  it('ships built JavaScript and types only, with an exports map', async () => {
    const manifest = JSON.parse(await readFile(join(dir, 'node_modules/@ahp/sdk/package.json'), 'utf8')) as { exports: Record<string, unknown>; private?: boolean };
    expect(Object.keys(manifest.exports)).toEqual(expect.arrayContaining(['.', './node']));
    expect(manifest.private).toBeUndefined();
    const files = await readdir(join(dir, 'node_modules/@ahp/sdk/dist'));
    expect(files).toContain('index.d.ts');
    expect(files.some((name) => name.endsWith('.spec.js') || name.endsWith('.ts.map') || name === '.tsbuildinfo')).toBe(false);
  });

  it('imports through its exports map in Node, every entry point', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', "const sdk = await import('@ahp/sdk'); const loop = await import('@ahp/sdk/agent-loop'); const transport = await import('@ahp/sdk/transport'); const node = await import('@ahp/sdk/node'); console.log(JSON.stringify([typeof sdk.connect, typeof loop.runAgentLoop, typeof transport.resolveTransport, typeof node.runTool, sdk.SDK_VERSION]))"],
      { cwd: dir },
    );
    const [connect, loop, transport, runTool, version] = JSON.parse(stdout) as string[];
    expect([connect, loop, transport, runTool]).toEqual(['function', 'function', 'function', 'function']);
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('type-checks the README quick start against the installed types', async () => {
    const readme = await readFile(join(WORKSPACE, 'libs/sdk/README.md'), 'utf8');
    const quickStart = /## Quick start\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(quickStart, 'README has a ```ts quick start block').toBeDefined();
    await writeFile(join(dir, 'quick-start.ts'), `${quickStart}\nexport {};\n`);
    // `process` in the snippet: a one-line declaration instead of installing @types/node.
    await writeFile(join(dir, 'env.d.ts'), 'declare const process: { env: Record<string, string | undefined> };\n');
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, types: [] }, files: ['env.d.ts', 'quick-start.ts'] }));
    const result = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: dir }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    expect(result.stdout).toBe('');
  }, 60_000);
});
