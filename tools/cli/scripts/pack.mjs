#!/usr/bin/env node
/**
 * Packs `@ahp/cli` as a tarball that installs without the monorepo:
 * `node tools/cli/scripts/pack.mjs [--out DIR]` → DIR/ahp-cli-<version>.tgz (default DIR: the
 * current directory), then `npm i -g ./ahp-cli-<version>.tgz` gives `ahp`.
 *
 * The workspace libraries (@ahp/protocol, store, oracles, stack) are private and never published,
 * so the tarball cannot declare them as dependencies: npm would look for them in the registry
 * (and find nothing, or someone else's package of that name). They are bundled instead, with
 * esbuild, together with their own dependencies (zod, redis, bullmq, yaml), so the installed
 * package has no dependencies at all and runs exactly the code the repository tested. Two
 * bundles, as in the repository: dist/hook-main.js, the small entry of `ahp hook claude-code`
 * (what Claude Code starts on every tool call: zod/mini and node:http, ~25 KB), and dist/cli.js,
 * everything else. bin/ahp.js picks one.
 *
 * Needs the CLI built first (`npx nx run cli:build`): it bundles dist/, not the sources.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { bundleHook } from './bundle-hook.mjs';

const here = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const outDir = resolve(values.out ?? process.cwd());
const source = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));

for (const entry of ['dist/cli.js', 'dist/hook-main.js']) {
  if (!existsSync(join(here, entry))) throw new Error(`${entry} is missing: build the CLI first (npx nx run cli:build)`);
}

const stage = mkdtempSync(join(tmpdir(), 'ahp-cli-pack-'));
try {
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    legalComments: 'none',
    // Bundled CommonJS dependencies (redis, bullmq) call require() for node's modules; an ES module has none.
    banner: { js: "import { createRequire as __ahpCreateRequire } from 'node:module'; const require = __ahpCreateRequire(import.meta.url);" },
  };
  await build({ ...common, entryPoints: [join(here, 'dist/cli.js')], outfile: join(stage, 'dist/cli.js') });
  // The hook entry (already bundled by the build; bundling it again changes nothing) hands anything
  // but a plain hook call to the full CLI, its sibling: never bundled in.
  await bundleHook(join(here, 'dist/hook-main.js'), join(stage, 'dist/hook-main.js'));
  mkdirSync(join(stage, 'bin'));
  copyFileSync(join(here, 'bin/ahp.js'), join(stage, 'bin/ahp.js'));
  copyFileSync(join(here, 'README.md'), join(stage, 'README.md'));
  const manifest = {
    name: source.name,
    version: source.version,
    description: source.description,
    license: 'MIT',
    type: 'module',
    engines: { node: '>=20.19' },
    bin: source.bin,
    files: ['bin', 'dist'],
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  mkdirSync(outDir, { recursive: true });
  const packed = execFileSync('npm', ['pack', '--pack-destination', outDir, '--loglevel=error'], { cwd: stage, encoding: 'utf8' }).trim().split('\n').pop();
  process.stdout.write(`${join(outDir, packed)}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
