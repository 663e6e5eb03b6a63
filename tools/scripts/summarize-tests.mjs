// Adds up the per-project Vitest JSON reports written during `npm test` and prints one line per
// project and the closing line "N passed, N failed, N skipped". Exits non-zero when a test
// failed or when no test ran at all (an empty run proves nothing).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const totals = { passed: 0, failed: 0, skipped: 0 };
let files = [];
try {
  files = readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.json'));
} catch {
  // no report folder: counted as "no test ran" below
}
for (const file of files.sort()) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const passed = report.numPassedTests ?? 0;
  const failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  console.log(`  ${file.replace(/\.json$/, '').padEnd(36)} ${passed} passed, ${failed} failed, ${skipped} skipped`);
}
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
if (totals.failed > 0) process.exit(1);
if (totals.passed === 0) {
  console.error('no test ran: a test run with no tests is a failure');
  process.exit(1);
}
