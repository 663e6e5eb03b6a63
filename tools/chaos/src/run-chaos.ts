/**
 * One chaos run, start to finish: a private Redis with AOF, gateways and workers as processes,
 * the synthetic agents, a warm-up, the seeded fault loop, the drain, the checks — and, whatever
 * happens, every process stopped again.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { provideRedis, type RedisHandle } from '@ahp/embedded-redis';
import { mintCredentials, startStack, writeTokensFile, type Stack } from '@ahp/stack';
import { AgentFleet } from './agent-fleet.js';
import { detectTrackCapabilities, describeTrackCapabilities } from './capabilities.js';
import { Cluster } from './cluster.js';
import { EvaluationLog, summarizeEvaluations } from './evaluation-log.js';
import { FaultScheduler, describePlannedFault } from './fault-plan.js';
import { injectFault, type FaultRecord } from './faults.js';
import { checkChaosOptions, type ChaosOptions } from './options.js';
import { recoveryByKind, recoveryOf } from './recovery.js';
import { countFaults, withVerdict, type ChaosReport } from './report.js';
import { ServiceLogCounter } from './service-log.js';
import { Traffic } from './traffic.js';
import { checkStoredDecisions } from './store-check.js';
import { GatewayDirectory } from './wire-tap.js';

/** The test oracle every worker loads. Beside `src/` and `dist/`, so both find it. */
export const CHAOS_ORACLE_PLUGIN = fileURLToPath(new URL('../fixtures/chaos-oracle.mjs', import.meta.url));

/** Key prefix of the run's data in its private Redis. */
const KEY_PREFIX = 'ahp-chaos';
/** Options of {@link runChaos} beyond the run's settings. */
export interface RunChaosHooks {
  /** Progress lines (faults as they happen, phases). @defaultValue silent */
  readonly log?: (line: string) => void;
  /** Aborting ends the fault loop early; the run still drains, checks and stops everything. */
  readonly signal?: AbortSignal;
  /** When the run fails, the services' logs are copied here. @defaultValue not kept */
  readonly keepLogsOnFailure?: string;
}

/** Sleeps, or returns false at once when `signal` aborts. */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await sleep(ms, undefined, signal ? { signal } : {});
    return true;
  } catch {
    return false;
  }
}

/** Runs the fault loop until `durationMs` is used up or the run is aborted. */
async function faultLoop(options: ChaosOptions, context: Parameters<typeof injectFault>[1], hooks: RunChaosHooks): Promise<FaultRecord[]> {
  const log = hooks.log ?? (() => undefined);
  const scheduler = new FaultScheduler(options.seed, options.faults);
  const records: FaultRecord[] = [];
  const until = Date.now() + options.durationMs;
  while (!hooks.signal?.aborted) {
    const fault = scheduler.next();
    if (Date.now() + fault.gapMs >= until) break;
    if (!(await pause(fault.gapMs, hooks.signal))) break;
    const record = await injectFault(fault, context);
    records.push(record);
    const facts = [
      record.affectedHooks === undefined ? '' : `${record.affectedHooks.length} jobs in flight`,
      record.affectedAgents === undefined || record.kind !== 'kill-gateway' ? '' : `${record.affectedAgents.length} agents connected`,
      `healed after ${record.healedAt - record.injectedAt} ms`,
    ].filter(Boolean);
    log(`${describePlannedFault(fault)} → ${record.target}: ${facts.join(', ')}`);
  }
  return records;
}

/** Runs one chaos run; see the module comment. Throws only when the environment fails, never for a finding. */
export async function runChaos(options: ChaosOptions, hooks: RunChaosHooks = {}): Promise<ChaosReport> {
  checkChaosOptions(options);
  const log = hooks.log ?? (() => undefined);
  const startedAt = new Date();
  const loadBefore = loadavg();
  const work = await mkdtemp(join(tmpdir(), 'ahp-chaos-'));
  const logDir = join(work, 'logs');
  const evaluationsDir = join(work, 'evaluations');
  await mkdir(logDir, { recursive: true });

  let redis: RedisHandle | undefined;
  let stack: Stack | undefined;
  let cluster: Cluster | undefined;
  let fleet: AgentFleet | undefined;
  let report: ChaosReport | undefined;
  // A crash of this process must not leave gateways and workers behind (Redis cleans up after itself).
  const killAll = (): void => {
    for (const service of [...(stack?.gateways ?? []), ...(stack?.workers ?? [])]) service.kill('SIGKILL');
  };
  process.on('exit', killAll);
  try {
    log(`seed ${options.seed}; starting Redis (AOF), ${options.gateways} gateways, ${options.workers} workers`);
    redis = await provideRedis({ mode: 'ephemeral' });
    const traffic = new Traffic(options);
    const credentials = mintCredentials(traffic.identities());
    const tokensFile = join(work, 'agent-tokens.json');
    await writeTokensFile(tokensFile, credentials);
    const serviceLogs = new ServiceLogCounter();
    stack = await startStack({
      redisUrl: redis.url,
      tokensFile,
      gateways: options.gateways,
      workers: options.workers,
      keyPrefix: KEY_PREFIX,
      logDir,
      gatewayEnv: { HOST: '127.0.0.1', AHP_HOOK_DEADLINE_MS: String(options.gatewayDeadlineMs) },
      workerEnv: {
        AHP_WORKER_LOCK_MS: String(options.bullmq.lockMs),
        AHP_WORKER_STALLED_INTERVAL_MS: String(options.bullmq.stalledIntervalMs),
        AHP_WORKER_MAX_STALLED: String(options.bullmq.maxStalled),
        AHP_ORACLE_PLUGINS: CHAOS_ORACLE_PLUGIN,
        // Never the oracle's budget: the hook deadline is what bounds a slow evaluation.
        AHP_ORACLE_BUDGET_MS: String(options.gatewayDeadlineMs),
        AHP_CHAOS_EVALUATIONS_DIR: evaluationsDir,
      },
      onLine: (service, line) => serviceLogs.line(service, line),
    });
    const directory = new GatewayDirectory(stack.gatewayUrls());
    cluster = new Cluster(stack, redis, directory);
    const ledger = traffic.hooks;
    fleet = await AgentFleet.connect({
      credentials,
      directory,
      onDecision: (decision) => ledger.wireDecision(decision),
      hookDeadlineMs: options.agentDeadlineMs,
      connectTimeoutMs: 30_000,
      loggerFor: (agentId) => traffic.loggerFor(agentId),
    });
    const tracks = detectTrackCapabilities();
    log(describeTrackCapabilities(tracks));
    log(`${options.agents} agents × ${options.lanes} lanes sending hooks; warming up for ${options.warmupMs} ms`);
    traffic.start(fleet, tracks);
    const evaluations = new EvaluationLog(evaluationsDir);
    const warmedUp = await pause(options.warmupMs, hooks.signal);
    const chaosStart = Date.now();
    const records = warmedUp ? await faultLoop(options, { cluster, fleet, ledger, evaluations }, hooks) : [];
    const chaosMs = Date.now() - chaosStart;

    if (!hooks.signal?.aborted) {
      log(`faults over; ${options.cooldownMs} ms of traffic without faults`);
      await pause(options.cooldownMs, hooks.signal);
    }
    log('letting every hook, plan and message settle');
    await traffic.drain();
    const now = Date.now();
    const hookSummary = ledger.summarize(now, options.graceMs);
    await evaluations.refresh();
    log('comparing delivered decisions with the ones stored in Redis');
    const storeCheck = await checkStoredDecisions(redis.url, KEY_PREFIX, ledger.records());
    const perFault = records.map((record) => recoveryOf(record, ledger.records()));

    report = withVerdict({
      settings: options,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      chaosMs,
      machine: { cpus: cpus().length, node: process.version, loadBefore, loadAfter: loadavg() },
      faults: { total: records.length, byKind: countFaults(records), records },
      recovery: { byKind: recoveryByKind(perFault), perFault },
      hooks: hookSummary,
      evaluations: summarizeEvaluations(evaluations.all(), new Set(records.flatMap((record) => record.affectedHooks ?? []))),
      serviceLogs: { ...serviceLogs.counts(), firstErrors: serviceLogs.firstErrors() },
      storeCheck,
      agents: fleet.stats(),
      unexpectedExits: cluster.unexpectedExits(),
      tracks,
      ...traffic.trackSummaries(now),
    });
    return report;
  } finally {
    log('stopping agents, gateways, workers and Redis');
    cluster?.stopping();
    await fleet?.close();
    await stack?.stop();
    await redis?.stop();
    process.off('exit', killAll);
    if (hooks.keepLogsOnFailure !== undefined && report?.ok !== true) {
      await cp(logDir, hooks.keepLogsOnFailure, { recursive: true }).catch(() => undefined);
    }
    await rm(work, { recursive: true, force: true });
  }
}
