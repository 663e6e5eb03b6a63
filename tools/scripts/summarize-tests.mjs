// Adds up the per-project Vitest JSON reports written during `npm test` and prints one line per
// project and the closing line "N passed, N failed, N skipped", then names what failed: each failed
// test, and each test file that failed outside a test (a beforeAll that threw marks its tests
// skipped, not failed — the counts alone would hide it). Exits non-zero when anything failed or
// when no test ran at all (an empty run proves nothing). CI shows only the end of the output: the
// names come last so that they are in it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const totals = { passed: 0, failed: 0, skipped: 0, failedFiles: 0 };
// eslint-disable-next-line no-control-regex -- the colour codes Vitest writes into messages
const plain = (text) => (text ?? '').replace(/\x1b\[[0-9;]*m/g, '');
const firstLine = (text) => plain(text).split('\n').find((line) => line.trim() !== '')?.trim().slice(0, 400) ?? '(no message)';
// Vitest writes a timeout into the JSON report as the stack of the placeholder error it created
// when the test was declared, so the report's first line reads "Error: STACK_TRACE_ERROR" and the
// words "timed out" are gone (seen in CI: a cluster start past the 5 s default). Say what it was.
const failureLine = (test) => {
  const line = firstLine(test.failureMessages?.[0]);
  if (line !== 'Error: STACK_TRACE_ERROR') return line;
  return `timed out after ${Math.round(test.duration ?? 0)} ms (Vitest's test or hook timeout; its report keeps no message)`;
};
// A failure's first line rarely says enough (a chaos run's summary, an expected/received pair):
// when only a few tests failed, the next lines of each message follow it, stack frames left out.
const DETAIL_LINES = 14;
const detailLines = (text) =>
  plain(text)
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*at /.test(line))
    .slice(1, 1 + DETAIL_LINES)
    .map((line) => line.slice(0, 300));
const failures = [];
const details = new Map();
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
  const project = file.replace(/\.json$/, '');
  for (const suite of report.testResults ?? []) {
    const failedTests = (suite.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedTests) {
      const failure = `${project} ${suite.name}: ${test.fullName}: ${failureLine(test)}`;
      failures.push(failure);
      details.set(failure, detailLines(test.failureMessages?.[0]));
    }
    if (suite.status === 'failed' && failedTests.length === 0) {
      totals.failedFiles += 1;
      failures.push(`${project} ${suite.name} (the file failed outside its tests): ${firstLine(suite.message)}`);
    }
  }
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  console.log(`  ${project.padEnd(36)} ${passed} passed, ${failed} failed, ${skipped} skipped`);
}
const filesFailed = totals.failedFiles > 0 ? `, ${totals.failedFiles} test file(s) failed outside their tests` : '';
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped${filesFailed}`);
if (failures.length > 0) {
  console.log('what failed:');
  const withDetails = failures.length <= 5;
  for (const failure of failures.slice(0, 30)) {
    console.log(`  ${failure}`);
    if (withDetails) for (const line of details.get(failure) ?? []) console.log(`      ${line}`);
  }
  if (failures.length > 30) console.log(`  … and ${failures.length - 30} more (the reports are in ${dir})`);
}
if (totals.failed > 0 || totals.failedFiles > 0) process.exit(1);
if (totals.passed === 0) {
  console.error('no test ran: a test run with no tests is a failure');
  process.exit(1);
}
