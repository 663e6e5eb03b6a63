/**
 * The one Vitest configuration every project starts from: where specs live, and — when the
 * workspace test command sets AHP_TEST_REPORT_DIR — a JSON report per project, which
 * tools/scripts/summarize-tests.mjs adds up into the closing "N passed, N failed" line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, mergeConfig, type ViteUserConfig } from 'vitest/config';

export function projectTestConfig(projectDir: string, overrides: ViteUserConfig = {}): ViteUserConfig {
  const { name } = JSON.parse(readFileSync(join(projectDir, 'package.json'), 'utf8')) as { name: string };
  const reportDir = process.env['AHP_TEST_REPORT_DIR'];
  const base = defineConfig({
    test: {
      name,
      root: projectDir,
      include: ['src/**/*.spec.ts', 'test/**/*.spec.ts', 'scripts/**/*.spec.ts'],
      environment: 'node',
      reporters: reportDir ? ['default', 'json'] : ['default'],
      ...(reportDir ? { outputFile: { json: join(reportDir, `${name}.json`) } } : {}),
    },
  });
  return mergeConfig(base, overrides);
}
