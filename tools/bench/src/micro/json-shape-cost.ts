/**
 * What the gateway's pre-parse shape scan (`measureJsonShape`, libs/protocol) costs next to
 * `JSON.parse`, in ms per MB of frame, for the shapes that matter: a frame nested 450,000 levels
 * deep (refused by the scan), 450,000 small numbers (refused at 200,000 values), one long string,
 * and an ordinary structured context. A standalone script, not a phase:
 * `node tools/bench/dist/micro/json-shape-cost.js`. Figures move with the machine's load.
 */
import { measureJsonShape } from '@ahp/protocol';

const HOOK_HEAD = '{"type":"hook","id":"0b5f0d0e-8c1a-4c59-9d57-2f3b1b1f3c11","trigger":"stop","context":';

const SHAPES: Record<string, string> = {
  'nested 450,000 deep': `${HOOK_HEAD}{"a":${'['.repeat(450_000)}${']'.repeat(450_000)}}}`,
  '450,000 small numbers': `${HOOK_HEAD}${JSON.stringify({ a: Array.from({ length: 450 }, () => Array.from({ length: 999 }, () => 0)) })}}`,
  'one 900 KB string': `${HOOK_HEAD}${JSON.stringify({ text: 'x'.repeat(900_000) })}}`,
  'ordinary context': `${HOOK_HEAD}${JSON.stringify({ files: Array.from({ length: 90 }, (_, i) => ({ name: `file${i}`, lines: Array.from({ length: 100 }, (_, j) => `line ${j} of some text`) })) })}}`,
};

/** Median ms of `runs` calls of `work`. */
function medianMs(work: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const perMb = (ms: number, text: string) => (ms / (text.length / 1e6)).toFixed(2);
process.stdout.write('shape                     MB     scan ms/MB  JSON.parse ms/MB  scan verdict\n');
for (const [name, text] of Object.entries(SHAPES)) {
  const shape = measureJsonShape(text);
  const scan = medianMs(() => measureJsonShape(text), 15);
  const parse = medianMs(() => {
    try {
      JSON.parse(text);
    } catch {
      // A refusal costs the same.
    }
  }, 15);
  const verdict = shape.ok ? `ok, ${shape.values} values` : shape.message;
  process.stdout.write(`${name.padEnd(26)}${(text.length / 1e6).toFixed(2).padEnd(7)}${perMb(scan, text).padEnd(12)}${perMb(parse, text).padEnd(18)}${verdict}\n`);
}
