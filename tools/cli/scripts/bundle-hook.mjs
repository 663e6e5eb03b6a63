#!/usr/bin/env node
/**
 * Bundles the entry of `ahp hook claude-code` (dist/hook-main.js, as tsc wrote it) into one file
 * in its place, as the last step of the CLI's build. Claude Code starts that entry once per tool
 * call: unbundled it resolves and compiles zod/mini's dozens of modules on every call (about twice
 * the start of a bare Node process); bundled it is one ~25 KB file (about 1.2 times). The full CLI
 * (dist/cli.js), which the entry loads only for anything but a plain hook call, stays external.
 * scripts/pack.mjs bundles the same way for the packed package.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** esbuild options of the hook entry; `pack.mjs` uses them too. */
export const HOOK_BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  external: ['./cli.js'],
};

/** Bundles `entry` into `outfile` (they may be the same file). */
export async function bundleHook(entry, outfile) {
  await build({ ...HOOK_BUNDLE_OPTIONS, entryPoints: [entry], outfile, allowOverwrite: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  await bundleHook(join(dist, 'hook-main.js'), join(dist, 'hook-main.js'));
  // tsc's map describes the unbundled file; a wrong map is worse than none.
  rmSync(join(dist, 'hook-main.js.map'), { force: true });
}
