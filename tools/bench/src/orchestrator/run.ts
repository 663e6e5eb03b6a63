/**
 * One benchmark run: sets up what every phase shares (a private Redis, agents and their tokens,
 * the load generator), runs the phases in order — baselines first — and returns the results with
 * the targets judged. A phase that fails is recorded and the run goes on with the next one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findWorkspaceRoot, provideRedis } from '@ahp/embedded-redis';
import { mintCredentials, writeTokensFile } from '@ahp/stack';
import type { AgentLogin } from '../loadgen/protocol.js';
import { approvals } from '../phases/approvals.js';
import { consoleScale } from '../phases/console-scale.js';
import { bullmqBaseline } from '../phases/bullmq-baseline.js';
import { commandHook } from '../phases/command-hook.js';
import { connections } from '../phases/connections.js';
import { decisionLatency } from '../phases/decision-latency.js';
import { replayContentionPhase } from '../phases/replay-contention.js';
import { shadowPhase } from '../phases/shadow.js';
import { nestBaseline, wsBaseline } from '../phases/echo-baselines.js';
import { evalBaseline } from '../phases/eval-baseline.js';
import { mcp } from '../phases/mcp.js';
import { rulesPhase } from '../phases/rules.js';
import { shards } from '../phases/shards.js';
import { noisyNeighbour } from '../phases/noisy-neighbour.js';
import { cpuProfilePhase } from '../phases/profile.js';
import { redisBaseline } from '../phases/redis-baseline.js';
import { spawnBaseline } from '../phases/spawn-baseline.js';
import { productThroughput } from '../phases/throughput.js';
import { workerScaling } from '../phases/worker-scaling.js';
import type { BenchPlan } from '../plan.js';
import { duration } from '../report/format.js';
import { buildTargets } from '../report/target-list.js';
import type { BenchResults } from '../results.js';
import { WORKER_CONCURRENCY } from '../shared/bullmq-settings.js';
import { loadBenchRules } from '../shared/rule-config.js';
import { ensureFileLimit } from '../system/fd-limit.js';
import { collectVersions, describeMachine, loadAverage } from '../system/machine.js';
import { BENCH_TRIGGER, TARGET_CONTEXT_BYTES } from '../workload/hook-events.js';
import { connectStatsClient, measuringHelpers, type Phase, type PhaseContext } from './context.js';
import { LoadGenerator } from './loadgen-client.js';
import { ProductStack } from './product-stack.js';

/** Options of {@link runBenchmark}. */
export interface RunOptions {
  plan: BenchPlan;
  /** The command line, as BENCHMARKS.md should show it. */
  command: string;
  /** Folder of the results file and the profiles. */
  resultsDir: string;
  /** Where the results file will be written (shown in the progress lines). */
  resultsFile: string;
  /** Oracle worker processes of the product stack (and of the bare BullMQ baseline). */
  workers: number;
  /** Phase keys to run; all when omitted. */
  only?: readonly string[];
  /** Progress output. @defaultValue `console.log` */
  log?: (line: string) => void;
}

/** Every phase, in run order; the profile phase only when the plan profiles. */
export function phasesFor(plan: BenchPlan, resultsDir: string): Phase[] {
  return [
    redisBaseline,
    wsBaseline,
    nestBaseline,
    bullmqBaseline,
    spawnBaseline,
    evalBaseline,
    rulesPhase,
    decisionLatency,
    shadowPhase,
    replayContentionPhase,
    commandHook,
    productThroughput,
    workerScaling,
    ...(plan.profileMs > 0 ? [cpuProfilePhase(resultsDir)] : []),
    connections,
    approvals,
    consoleScale,
    mcp,
    shards,
    noisyNeighbour,
  ];
}

/** Open files the run needs: a socket per connected agent in the gateway and in the load generator, plus room for everything else. */
function filesNeeded(plan: BenchPlan): number {
  return Math.max(plan.idleConnections, plan.consoleAgents, ...plan.capacitySteps) * 2 + 8192;
}

export async function runBenchmark(options: RunOptions): Promise<BenchResults> {
  const { plan } = options;
  const log = options.log ?? ((line: string) => console.log(line));
  const say = (line: string) => log(`[bench] ${line}`);
  const root = findWorkspaceRoot();
  const startedAt = new Date();
  const fileLimit = ensureFileLimit(filesNeeded(plan));
  const machine = describeMachine();
  say(`${plan.mode} mode on ${machine.cpuModel} × ${machine.nproc}, load average ${machine.loadAverageAtStart.join(' ')}; open files: ${fileLimit.action}`);

  const runDir = await mkdtemp(join(tmpdir(), 'ahp-bench-'));
  const redis = await provideRedis({ mode: 'ephemeral' });
  let loadgen: LoadGenerator | undefined;
  let mainStack: Promise<ProductStack> | undefined;
  try {
    const agentCount = plan.agents + Math.max(plan.idleConnections, plan.consoleAgents, ...plan.capacitySteps);
    say(`private Redis ${redis.version ?? ''} on ${redis.url}; minting ${agentCount.toLocaleString('en-US')} agent tokens`);
    const credentials = mintCredentials(
      Array.from({ length: agentCount }, (_, index) => ({ id: `bench-agent-${index}`, name: `Benchmark agent ${index}`, team: 'bench' })),
    );
    const tokensFile = join(runDir, 'agent-tokens.json');
    await writeTokensFile(tokensFile, credentials);
    const logins: AgentLogin[] = credentials.map(({ agent, token }) => ({ agentId: agent.id, token }));
    const started = await LoadGenerator.start();
    loadgen = started;
    const stats = await connectStatsClient(redis.url);
    const rules = await loadBenchRules(root);

    const results: BenchResults = {
      tool: '@ahp/bench',
      schemaVersion: 1,
      mode: plan.mode,
      command: options.command,
      startedAt: startedAt.toISOString(),
      machine,
      versions: collectVersions(root, redis.version),
      fileLimit,
      workload: {
        trigger: BENCH_TRIGGER,
        contextBytes: TARGET_CONTEXT_BYTES,
        mix: '90 % allowed, 5 % rewritten (git push --force), 5 % denied (rm -rf ~)',
        workerRules: 'not started yet',
        evalRules: rules.description,
      },
      setup: { gateways: 1, workers: options.workers, workerConcurrency: WORKER_CONCURRENCY, agents: plan.agents },
      baselines: {},
      product: {},
      targets: [],
      phases: [],
    };

    const baseProcesses = () => [
      { name: 'redis', pid: redis.pid ?? -1 },
      { name: 'loadgen', pid: started.pid, includeReapedChildren: true },
      { name: 'orchestrator', pid: process.pid },
    ];
    const ctx: PhaseContext = {
      plan,
      root,
      runDir,
      redis,
      loadgen: started,
      logins,
      tokensFile,
      results,
      rules,
      say: (line) => say(`    ${line}`),
      baseProcesses,
      ...measuringHelpers(stats, baseProcesses),
      product() {
        mainStack ??= (async () => {
          const stack = await ProductStack.start(ctx, { name: 'main', workers: options.workers });
          results.workload.workerRules = stack.rules;
          ctx.say(`workers evaluate with: ${stack.rules}`);
          const report = await started.open({ name: 'sdk', urls: stack.urls(), logins: logins.slice(0, plan.agents) });
          if (report.failed > 0) ctx.say(`${report.failed} SDK agents failed to connect: ${report.failures.join('; ')}`);
          return stack;
        })().catch((error: unknown) => {
          mainStack = undefined; // let a later phase try again
          throw error;
        });
        return mainStack;
      },
      async releaseProduct() {
        const running = mainStack;
        mainStack = undefined;
        if (running === undefined) return;
        await started.close('sdk').catch(() => undefined);
        await (await running.catch(() => undefined))?.stop();
      },
    };

    const phases = phasesFor(plan, options.resultsDir).filter((phase) => options.only === undefined || options.only.includes(phase.key));
    for (const [index, phase] of phases.entries()) {
      say(`phase ${index + 1}/${phases.length}: ${phase.name}… ${phase.describe(plan)}`);
      const phaseStart = performance.now();
      try {
        const summary = await phase.run(ctx);
        const seconds = (performance.now() - phaseStart) / 1000;
        results.phases.push({ name: phase.name, status: 'ok', seconds: Math.round(seconds * 10) / 10 });
        say(`  → ${summary} [${duration(seconds)}; ${options.resultsFile} → ${phase.resultPath}]`);
      } catch (error) {
        const seconds = (performance.now() - phaseStart) / 1000;
        const message = error instanceof Error ? error.stack ?? error.message : String(error);
        results.phases.push({ name: phase.name, status: 'error', seconds: Math.round(seconds * 10) / 10, error: message });
        say(`  ✗ ${phase.name} failed after ${duration(seconds)}: ${message}`);
      }
    }
    await ctx.releaseProduct();
    stats.destroy();

    results.targets = buildTargets(results);
    results.machine.loadAverageAtEnd = loadAverage();
    results.finishedAt = new Date().toISOString();
    results.durationSeconds = Math.round((Date.now() - startedAt.getTime()) / 100) / 10;
    return results;
  } finally {
    if (mainStack !== undefined) await (await mainStack.catch(() => undefined))?.stop();
    await loadgen?.stop();
    await redis.stop();
    await rm(runDir, { recursive: true, force: true });
  }
}
