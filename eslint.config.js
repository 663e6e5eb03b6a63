// Root ESLint flat config. Every project's `lint` target runs `eslint .` from its own folder and
// picks this file up. Module boundaries: tags on each project (package.json → nx.tags) say what it
// is; depConstraints say what it may import. Inside a project, import-x/no-cycle forbids cycles.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Files that test or build a project rather than ship in it. */
const devFiles = ['**/*.spec.ts', '**/test/**/*.ts', '**/scripts/**/*.ts', '**/scripts/**/*.mjs', '**/vitest.config.ts'];

/**
 * The architecture's dependency rules. For dev files (specs, test helpers, scripts) `dev` is true:
 * they may also use the test tooling in tools/ (a private Redis, key prefixes) and vitest, which
 * production code of a lib or an app must never import.
 */
function boundaries(dev, allow = []) {
  const libDeps = dev ? ['type:lib', 'type:tool'] : ['type:lib'];
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      allow,
      banTransitiveDependencies: true,
      depConstraints: [
        // The protocol is pure: schemas, types and functions over zod, nothing else. zod/mini is the
        // same package in its tree-shakeable form (claude-code-output.ts: the command hook's start-up).
        {
          sourceTag: 'scope:protocol',
          onlyDependOnLibsWithTags: [],
          allowedExternalImports: dev ? ['zod', 'zod/mini', 'vitest', 'vitest/config', 'vite', 'fast-check'] : ['zod', 'zod/mini'],
        },
        // The console runs in the browser and the SDK ships to agent authors: both speak to the
        // control plane only through the wire contract, never through the store or a server library.
        { sourceTag: 'deps:protocol-only', onlyDependOnLibsWithTags: ['scope:protocol'] },
        // Libraries never import an app, a tool or the e2e suite.
        { sourceTag: 'type:lib', onlyDependOnLibsWithTags: libDeps },
        { sourceTag: 'type:app', onlyDependOnLibsWithTags: libDeps },
        { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:tool'] },
        { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib', 'type:tool'] },
      ],
    },
  ];
}

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/.next/**', '**/.nx/**', '**/coverage/**', '**/*.d.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { '@nx': nx, 'import-x': importX },
    settings: {
      // Resolves our `./x.js` specifiers to the `./x.ts` beside them, as tsc does (NodeNext). Each
      // project lints from its own folder, so its own tsconfig.json is the one read.
      'import-x/resolver-next': [createTypeScriptImportResolver({ alwaysTryTypes: true })],
      // The files the cycle search reads, and the parser it reads them with. Another workspace
      // project resolves outside the linted one (to its dist/), which counts as external: the
      // search stops there, since the module-boundary rule already rules out cycles between projects.
      'import-x/extensions': ['.ts', '.tsx', '.mts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts'] },
      // Each file's imports are read once per run: a lint run is short-lived, and re-checking each
      // cached file made the cycle search cost 4 times as much (15 s instead of 3.5 s on protocol).
      // An editor's long-running ESLint sees a new cycle after its restart.
      'import-x/cache': { lifetime: Infinity },
    },
    rules: {
      // A cycle inside a project makes import order decide what is initialised (a class that is
      // still undefined when a decorator reads it) and hides which module is the lower layer.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Libraries log through an injected logger; only CLIs print.
      'no-console': 'error',
      '@nx/enforce-module-boundaries': boundaries(false),
    },
  },
  {
    // The Nx rule lets Node built-ins through; the protocol must not do I/O, so ban them here.
    files: ['libs/protocol/src/**/*.ts'],
    ignores: devFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', ...builtinModules], message: 'libs/protocol is pure: no Node built-ins, no I/O.' },
          ],
        },
      ],
    },
  },
  {
    files: devFiles,
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@nx/enforce-module-boundaries': boundaries(true),
    },
  },
  {
    // Test configuration is not part of any project's runtime graph; it may import the shared base.
    files: ['**/vitest.config.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    // The ops console (Next.js): its components and client modules also run in the browser.
    files: ['apps/console/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The console's own path alias (`@/…` → apps/console/src, tsconfig.json `paths`) is its own code, not a package.
    files: ['apps/console/**/*.{ts,tsx}'],
    ignores: devFiles,
    rules: { '@nx/enforce-module-boundaries': boundaries(false, ['@/**']) },
  },
  {
    // The one exception to the console's protocol-only rule: its server's tracing start-up, loaded
    // by instrumentation.ts in the Node runtime only (never in a browser bundle), uses @ahp/telemetry
    // (and the spec checking instrumentation.ts's switch against it).
    files: ['apps/console/src/lib/server/console-tracing.ts', 'apps/console/src/lib/server/tracing-switch.spec.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(false, ['@/**', '@ahp/telemetry']) },
  },
  {
    // Command-line tools talk to a person on purpose.
    files: ['tools/**/*.ts', '**/scripts/**/*.ts', '**/scripts/**/*.mjs', 'tools/**/*.mjs'],
    rules: { 'no-console': 'off' },
  },
);
