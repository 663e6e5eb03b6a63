// Cost of redactText on typical free text (ns per KB), after `npx nx run @ahp/protocol:build`:
//   node libs/protocol/bench/redact-text.mjs
// The figures are in docs/signal-log.md ("Redaction"). Not a test: timings vary by machine, so
// two baselines run beside it on the same text: the three patterns redactText had before it
// learnt token formats, key blocks and name=value pairs, and JSON.parse of a frame of that size.
import { redactText } from '../dist/index.js';

const OLD_PATTERNS = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi, '$1 [redacted]'],
  [/\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{0,256}:)[^\s@/]{1,1024}@/gi, '$1[redacted]@'],
  [/([?&](?:token|access_token|api_key|apikey|password|secret)=)[^&\s#]+/gi, '$1[redacted]'],
];
const oldRedactText = (text) => OLD_PATTERNS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
const frameOf = (text) => JSON.stringify({ type: 'event', id: 'e1', event: { kind: 'x', text } });

const prose =
  'The build step failed because the migration for the orders table timed out after 30 seconds; I will retry with a smaller batch size and report the result. Step 3 of the plan: run npm test -- --maxWorkers=4 and check coverage. ';
const logLines = '2026-11-25T21:00:00Z INFO worker-1 job=1234 status=done duration_ms=52 url=https://example.com:8443/x?page=2 user=bob@example.com\n';
const withCredentials = `export GITHUB_TOKEN=ghp_${'a1B2'.repeat(9)} then curl -H "Authorization: Bearer abc.def" https://bot:pw@host/x password=hunter2\n`;
const json = JSON.stringify({ kind: 'verification', result: { ok: false, type: 'test_failure', summary: 'expected 3 to be 4', details: [{ file: 'a.ts', line: 3 }] } });
const fill = (text, bytes) => text.repeat(Math.ceil(bytes / text.length)).slice(0, bytes);
const cases = [
  ['prose, 1 KB', fill(prose, 1024)],
  ['log lines, 1 KB', fill(logLines, 1024)],
  ['JSON, 1 KB', fill(json, 1024)],
  ['credentials, 1 KB', fill(withCredentials, 1024)],
  ['prose, 64 KB', fill(prose, 65536)],
  ['a UUID', '0b9e3c1a-4f7d-4a43-9a0b-5b0f1e2d3c4b'],
  ['a sentence (80 chars)', prose.slice(0, 80)],
];
function nsPerCall(run, text) {
  const rounds = Math.max(500, Math.floor(20_000_000 / Math.max(text.length, 64)));
  for (let i = 0; i < rounds; i++) run(text);
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) run(text);
  return Number(process.hrtime.bigint() - start) / rounds;
}
const column = (ns, text) => `${ns.toFixed(0).padStart(8)} ns ${(ns / (text.length / 1024)).toFixed(0).padStart(7)} ns/KB`;
process.stdout.write(`${'text'.padEnd(24)} ${'redactText'.padStart(26)} ${'before (3 patterns)'.padStart(26)} ${'JSON.parse of a frame'.padStart(26)}\n`);
for (const [name, text] of cases) {
  const frame = frameOf(text);
  const now = nsPerCall(redactText, text);
  const before = nsPerCall(oldRedactText, text);
  const parse = nsPerCall((f) => JSON.parse(f), frame);
  process.stdout.write(`${name.padEnd(24)} ${column(now, text).padStart(26)} ${column(before, text).padStart(26)} ${column(parse, text).padStart(26)}\n`);
}
