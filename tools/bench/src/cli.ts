#!/usr/bin/env node
/**
 * `npm run bench -- [--smoke | --quick | --full] [options]`: runs the benchmark, writes the
 * results file, prints the table and (a full run of every phase, or --write-md) updates BENCHMARKS.md.
 *
 * Exit status: 0 when every phase ran, 1 when a phase failed or the options are wrong. Missed
 * targets do not change it: the benchmark measures, CI only checks that it still runs.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findWorkspaceRoot } from '@ahp/embedded-redis';
import { phasesFor, runBenchmark } from './orchestrator/run.js';
import { planFor, type BenchMode } from './plan.js';
import { renderLatestRun, replaceLatestRun } from './report/markdown.js';
import { renderTable } from './report/table.js';

const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

const HELP = `Usage: npm run bench -- [--smoke | --quick | --full] [options]

Measures AHP on this machine against baselines measured in the same run: Redis PING, a raw ws
echo, the same echo through NestJS, a bare BullMQ round trip, a spawned command hook and the
rule engine in-process; then the product's decision latency, sustained throughput, Redis
commands per decision, worker scaling, memory per idle connection and connected-agent capacity.

Modes:
  --smoke        every phase once with tiny counts, in seconds (CI; the numbers mean nothing)
  --quick        usable numbers in under two minutes (default)
  --full         the run BENCHMARKS.md reports; several minutes; writes BENCHMARKS.md

Options:
  --write-md     update BENCHMARKS.md with this run's table (a full run of every phase does it anyway)
  --json FILE    where to write the results (default tools/bench/results/latest.json)
  --only KEYS    run only these phases, comma-separated: ${phasesFor(planFor('full'), RESULTS_DIR)
    .map((phase) => phase.key)
    .join(', ')}
  --workers N    oracle worker processes of the product and of the BullMQ baseline (default 2)
  --profile      add the CPU-profile phase in quick mode (smoke and full always have it)
  --console-agents N
                 agents the console phase connects (default 5,000; 20,000 is the large-fleet figure)
  -h, --help     this text`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      smoke: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      full: { type: 'boolean', default: false },
      'write-md': { type: 'boolean', default: false },
      json: { type: 'string' },
      only: { type: 'string' },
      workers: { type: 'string', default: '2' },
      profile: { type: 'boolean', default: false },
      'console-agents': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const modes = (['smoke', 'quick', 'full'] as const).filter((mode) => values[mode]);
  if (modes.length > 1) throw new UsageError(`choose one mode, not ${modes.map((mode) => `--${mode}`).join(' and ')}`);
  const mode: BenchMode = modes[0] ?? 'quick';
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 16) throw new UsageError('--workers must be a whole number from 1 to 16');
  const plan = planFor(mode);
  if (values.profile && plan.profileMs === 0) plan.profileMs = 5000;
  if (values['console-agents'] !== undefined) {
    const agents = Number(values['console-agents']);
    if (!Number.isInteger(agents) || agents < 1 || agents > 50_000) throw new UsageError('--console-agents must be a whole number from 1 to 50,000');
    plan.consoleAgents = agents;
  }
  const only = values.only?.split(',').map((key) => key.trim()).filter((key) => key !== '');
  const known = phasesFor(plan, RESULTS_DIR).map((phase) => phase.key);
  const unknown = only?.filter((key) => !known.includes(key)) ?? [];
  if (unknown.length > 0) throw new UsageError(`unknown phase ${unknown.join(', ')}; known: ${known.join(', ')}`);

  const root = findWorkspaceRoot();
  const jsonFile = values.json ?? join(RESULTS_DIR, 'latest.json');
  const shown = relative(root, jsonFile) || jsonFile;
  const command = `npm run bench -- ${process.argv.slice(2).join(' ') || '--quick'}`;

  const results = await runBenchmark({ plan, command, resultsDir: RESULTS_DIR, resultsFile: shown, workers, ...(only ? { only } : {}) });
  const text = `${JSON.stringify(results, null, 2)}\n`;
  await mkdir(dirname(jsonFile), { recursive: true });
  await writeFile(jsonFile, text);
  // The full run's figures are the ones BENCHMARKS.md cites; they are kept under their own name
  // so a later smoke or quick run does not replace them.
  const keptFile = join(RESULTS_DIR, 'latest-full.json');
  if (mode === 'full' && only === undefined && values.json === undefined) await writeFile(keptFile, text);

  const table = renderTable(results);
  console.log(`\n${table}\n`);
  console.log(`[bench] results: ${shown}`);
  // A full run of only some phases is a partial picture: it replaces BENCHMARKS.md's table only
  // when asked to explicitly.
  if (values['write-md'] || (mode === 'full' && only === undefined)) {
    const path = join(root, 'BENCHMARKS.md');
    const existing = await readFile(path, 'utf8').catch(() => undefined);
    const rawFile = relative(root, mode === 'full' && only === undefined && values.json === undefined ? keptFile : jsonFile);
    await writeFile(path, replaceLatestRun(existing, renderLatestRun(results, table, rawFile)));
    console.log(`[bench] table written to ${relative(process.cwd(), path) || path}`);
  }
  const failed = results.phases.filter((phase) => phase.status === 'error');
  if (failed.length > 0) console.error(`[bench] ${failed.length} phase(s) failed: ${failed.map((phase) => phase.name).join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

/** Wrong options: reported with a pointer to --help, exit 1. */
class UsageError extends Error {}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`[bench] ${error instanceof UsageError ? `${error.message} (see --help)` : error instanceof Error ? error.stack ?? error.message : String(error)}`);
    process.exit(1);
  },
);
