#!/usr/bin/env node
/**
 * The oracle worker process: takes hook jobs from the BullMQ queue, evaluates them and stores the
 * decisions. Stateless; run as many as the load needs.
 *
 * Process contract:
 * - stdout carries exactly one line, `{"event":"ready","service":"oracle-worker","worker_id":…,
 *   "pid":…,"concurrency":…,"metrics_port":…}`, once the worker is connected and takes jobs.
 *   Supervisors and tests wait for it.
 * - HTTP on `AHP_WORKER_METRICS_PORT` (default 9464; 0 picks a free port, reported as
 *   `metrics_port`): `GET /metrics` (Prometheus) and `GET /healthz` (200 once it takes jobs, 503
 *   while starting or stopping). It listens before Redis is reached, so a worker stuck at start
 *   shows as unhealthy rather than absent.
 * - stderr carries the logs, one JSON object per line (see `JsonLogger` in @ahp/telemetry).
 * - SIGTERM or SIGINT: stop taking jobs, let active ones finish, close Redis, exit 0. A second
 *   signal exits at once with 1.
 * - `--describe-config`: print the variables it reads as JSON (name, required, default,
 *   description) and exit 0 without connecting anywhere; tools/compose-check uses it.
 * - Exit 78 (EX_CONFIG) for an invalid environment or oracle plugins that do not load: restarting
 *   will not help until the configuration changes. Exit 1 for anything else that stops the process.
 *
 * Hooks configuration: the worker evaluates the version current in Redis (published with
 * `ahp config publish`), compiled with its plugins, and swaps in every newer version without a
 * restart (see hooks-config.ts). With no version published it runs the built-in defaults and its
 * plugins, as before; decisions then carry no `config_version`. A shadow version, when one is set,
 * is evaluated after each live decision and never decides anything (shadow.ts).
 */
import { randomUUID } from 'node:crypto';
import { combineOracles, compileHooksConfig, defaultOracles, loadOraclePlugins, OracleSetupError } from '@ahp/oracles';
import type { Oracle } from '@ahp/oracles';
import { answerGraceMs, type StoredConfigVersion } from '@ahp/protocol';
import {
  connectRedis,
  createConfigStore,
  createHealthStore,
  createHookWorker,
  createKeys,
  createNotificationQueue,
  createNotificationStore,
  createNotificationThrottle,
  createNotificationWorker,
  createConfigReplayWorker,
  loadDecisionLinkSecret,
  loadVapidKeys,
  createPushSubscriptionStore,
  createRedisStores,
  createReplayLog,
  createReplicaAcks,
  createRuleCounterStore,
  createShadowConfigStore,
  resolveHookQueueShardCount,
} from '@ahp/store';
import type { ConfigReplayWorker, HookWorker, Logger, NotificationQueue, NotificationWorker, RedisClient, RequestEventConsumer, RuleCounterStore } from '@ahp/store';
import { createHookDetailStore, createToolApprovalStore, createToolGrantStore } from '@ahp/store';
import { ConfigError, describeConfig, loadConfig } from './config.js';
import type { WorkerConfig } from './config.js';
import { createHooksConfigRuntime } from './hooks-config.js';
import type { HookEvaluator, HooksConfigRuntime } from './hooks-config.js';
import { startMetricsServer } from './metrics-server.js';
import type { MetricsServer } from './metrics-server.js';
import { WorkerMetrics } from './metrics.js';
import { createHookProcessor, oraclesEvaluator } from './processor.js';
import type { OracleHookProcessor } from './processor.js';
import { createNotificationDelivery } from './notifications/deliver.js';
import { createNotificationDispatcher } from './notifications/dispatcher.js';
import { createToolApprovals } from './tool-approvals.js';
import { createConfigReplayProcessor, createHookActivity } from './config-replay-job.js';
import { createReplayRecorder } from './replay-recorder.js';
import { startWorkerPresence } from './worker-presence.js';
import { createJobTracing } from './job-tracing.js';
import { JsonLogger, TracingConfigError, activeTracing, startTracing, tracingConfigFromEnv, type TracingConfig } from '@ahp/telemetry';
import { createShadowRunner, type ShadowRunner } from './shadow.js';
import { registerShadowMetrics } from './shadow-metrics.js';

const SERVICE = 'oracle-worker';
const EXIT_CONFIG = 78;

let worker: HookWorker | undefined;
let redis: RedisClient | undefined;
let processor: OracleHookProcessor | undefined;
let hooksConfig: HooksConfigRuntime | undefined;
let shadow: ShadowRunner | undefined;
let presence: { stop(): Promise<void> } | undefined;
let notifyDispatcher: RequestEventConsumer | undefined;
let notifyWorker: NotificationWorker | undefined;
let notifyQueue: NotificationQueue | undefined;
let replayWorker: ConfigReplayWorker | undefined;
let metricsServer: MetricsServer | undefined;
let ready = false;
let stopping = false;

function loadConfigOrExit(): WorkerConfig {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${SERVICE}: ${error.message}\n`);
    process.exit(EXIT_CONFIG);
  }
}

/** OpenTelemetry tracing as the standard OTEL_* variables ask (off when none is set; docs/deploy.md "Tracing"). */
function tracingConfigOrExit(): TracingConfig {
  try {
    return tracingConfigFromEnv(process.env, 'ahp-oracle-worker');
  } catch (error) {
    if (!(error instanceof TracingConfigError)) throw error;
    process.stderr.write(`${SERVICE}: ${error.message}\n`);
    process.exit(EXIT_CONFIG);
  }
}

if (process.argv.includes('--describe-config')) {
  process.stdout.write(`${JSON.stringify(describeConfig())}\n`);
  process.exit(0);
}

const config = loadConfigOrExit();
const tracingConfig = tracingConfigOrExit();
const log: Logger = new JsonLogger({ level: config.logLevel, bindings: { service: SERVICE, workerId: config.workerId } });
const metrics = new WorkerMetrics({ configVersion: () => hooksConfig?.active().version });

function fail(code: number, message: string, error?: unknown): never {
  log.error({ error }, message);
  process.exit(code);
}

async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stopping) {
    log.warn({ signal }, 'second signal during shutdown: exiting without waiting for active jobs');
    process.exit(1);
  }
  stopping = true;
  log.info({ signal }, 'shutting down: no new jobs, waiting for active ones');
  let code = 0;
  try {
    await hooksConfig?.stop();
  } catch (error) {
    code = 1;
    log.error({ error }, 'stopping the hooks configuration watch failed');
  }
  await presence?.stop();
  try {
    await replayWorker?.close();
  } catch (error) {
    code = 1;
    log.error({ error }, 'closing the replay worker failed');
  }
  try {
    await notifyDispatcher?.stop();
    await notifyWorker?.close();
    await notifyQueue?.close();
  } catch (error) {
    code = 1;
    log.error({ error }, 'closing the notification queue failed');
  }
  try {
    await worker?.close();
  } catch (error) {
    code = 1;
    log.error({ error }, 'closing the worker failed');
  }
  try {
    // After the hook worker: its last jobs may still have handed hooks to the shadow.
    await shadow?.stop();
    if (shadow !== undefined) log.info({ ...shadow.stats() }, 'shadow evaluation totals');
  } catch (error) {
    code = 1;
    log.error({ error }, 'stopping the shadow evaluation failed');
  }
  if (processor !== undefined) log.info({ ...processor.stats() }, 'hook processor totals');
  try {
    await redis?.close();
  } catch (error) {
    code = 1;
    log.error({ error }, 'closing the Redis connection failed');
  }
  try {
    await activeTracing().shutdown();
  } catch (error) {
    log.warn({ error }, 'exporting the last spans failed');
  }
  log.info({ exitCode: code }, 'stopped');
  await metricsServer?.close();
  process.exit(code);
}

/**
 * A stored hooks configuration version compiled with this worker's plugins, evaluating with the
 * Redis counters. A shadow (shadow.ts) is compiled as version 0, "not published", with its own counters.
 */
function compiledEvaluator(stored: Pick<StoredConfigVersion, 'version' | 'config'>, plugins: readonly Oracle[], counters: RuleCounterStore): HookEvaluator {
  const compiled = compileHooksConfig(stored.config, { version: stored.version, plugins });
  return {
    version: stored.version,
    answerGraceMs: (trigger) => answerGraceMs(stored.config, trigger),
    ...(stored.config.notifications === undefined ? {} : { notifications: stored.config.notifications }),
    evaluate: (input, deps) =>
      compiled.evaluate(input, {
        now: deps.now,
        newId: deps.newId,
        counters,
        deadlineAt: deps.deadlineAt,
        budgetMs: deps.budgetMs,
        ...(deps.onOracleSettled === undefined ? {} : { onOracleSettled: deps.onOracleSettled }),
        ...(deps.inputIsOwned === undefined ? {} : { inputIsOwned: deps.inputIsOwned }),
      }),
  };
}

async function start(): Promise<void> {
  try {
    metricsServer = await startMetricsServer({
      port: config.metricsPort,
      host: config.metricsHost,
      token: config.metricsToken,
      metrics: () => metrics.render(),
      health: () => ({ ok: ready && !stopping, body: { status: stopping ? 'stopping' : ready ? 'ok' : 'starting', worker_id: config.workerId } }),
      onError: (error) => log.error({ error }, 'rendering the metrics failed'),
    });
  } catch (error) {
    fail(1, `the metrics server cannot listen on ${config.metricsHost}:${config.metricsPort} (AHP_WORKER_METRICS_PORT): ${error instanceof Error ? error.message : String(error)}`, error);
  }
  log.info({ metricsPort: metricsServer.port, metrics: `http://${config.metricsHost}:${metricsServer.port}/metrics` }, 'metrics and health server listening');
  if (stopping) return;

  const tracing = await startTracing(tracingConfig);
  if (tracing.enabled) log.info({ sampler: tracingConfig.enabled ? tracingConfig.sampler : undefined }, 'OpenTelemetry tracing on');

  let oracles: Oracle[];
  let plugins: Oracle[];
  try {
    plugins = await loadOraclePlugins(config.oraclePlugins);
    oracles = combineOracles(defaultOracles(), plugins);
  } catch (error) {
    if (error instanceof OracleSetupError) fail(EXIT_CONFIG, `oracle setup failed: ${error.message}`, error);
    throw error;
  }

  redis = await connectRedis({
    url: config.redisUrl,
    clusterNodes: config.redisClusterNodes,
    name: `${SERVICE}:${config.workerId}`.slice(0, 128),
    logger: log,
  });
  if (stopping) return;
  const keys = createKeys({ prefix: config.keyPrefix });
  // Every gateway and worker of a deployment agrees on the shard count (stored by the first one).
  const shards = await resolveHookQueueShardCount(redis, keys, config.hookQueueShards);
  // The cap on an agent's pending requests counts the tool approvals rules open for it, as the
  // gateways count its request frames (docs/hooks.md): a call past it is blocked, not asked.
  const stores = createRedisStores({ redis, keys, replicaAcks: createReplicaAcks(redis, config.redisWait, log), logger: log, maxPendingRequestsPerAgent: config.agentMaxPendingRequests });
  const counters = createRuleCounterStore({ redis, keys });
  const runtime = createHooksConfigRuntime({
    store: createConfigStore({ redis, keys, logger: log }),
    compile: (stored) => compiledEvaluator(stored, plugins, counters),
    fallback: oraclesEvaluator(oracles),
    logger: log,
    recheckMs: config.configRecheckMs,
  });
  hooksConfig = runtime;
  await runtime.start();
  if (stopping) return;
  // Shadow mode: the candidate version is evaluated after each live decision, with escalation
  // counters of its own (another key prefix per shadow), so live counters are never touched.
  shadow = createShadowRunner({
    store: createShadowConfigStore({ redis, keys, logger: log }),
    compile: (stored) =>
      compiledEvaluator({ version: 0, config: stored.config }, plugins, createRuleCounterStore({ redis: redis as RedisClient, keys: createKeys({ prefix: `${keys.prefix}:shadow-${stored.shadow}` }) })),
    logger: log,
    budgetMs: config.oracleBudgetMs,
    maxInFlight: config.concurrency,
    recheckMs: config.configRecheckMs,
    newId: randomUUID,
    onOutcome: registerShadowMetrics(metrics.registry, () => shadow?.active() ?? null),
  });
  await shadow.start();
  if (stopping) return;
  // Rules with require_approval: requests, grants and the two-round decision (tool-approvals.ts).
  const approvals = createToolApprovals({
    approvals: createToolApprovalStore({ redis, keys, requests: stores.requests }),
    grants: createToolGrantStore({ redis, keys }),
    logger: log,
  });
  // The replay log (docs/hooks.md, "Replay a candidate configuration"): written per hook, read by replays.
  const replayLog = createReplayLog({
    redis,
    keys,
    maxEntries: Math.max(1, config.replay.maxEntries),
    retentionMs: config.replay.retentionMs,
    maxContextBytes: config.replay.maxContextBytes,
  });
  processor = createHookProcessor({
    hooks: stores.hooks,
    ...(config.replay.maxEntries === 0 ? {} : { recorder: createReplayRecorder({ log: replayLog, logger: log, onFailure: () => metrics.replayRecordFailed() }) }),
    evaluator: runtime.active,
    budgetMs: config.oracleBudgetMs,
    logger: log,
    metrics: metrics.processor,
    approvals,
    lateAid: { store: stores.operatorSignals, windowMs: config.lateAidWindowMs },
    lateReports: createHookDetailStore({ redis, keys }),
    ...(tracing.enabled ? { tracing: createJobTracing(tracing.tracer) } : {}),
    shadow,
  });
  const evaluating = processor;
  const hookActivity = createHookActivity();
  worker = createHookWorker({
    redis,
    keys,
    shards,
    ...(config.workerShards === undefined ? {} : { consumeShards: config.workerShards }),
    concurrency: config.concurrency,
    lockDurationMs: config.lockDurationMs,
    stalledIntervalMs: config.stalledIntervalMs,
    maxStalledCount: config.maxStalledCount,
    // Watched so a replay running in this process gives way to hook jobs (config-replay-job.ts).
    processor: (data, meta) => hookActivity.run(() => evaluating.process(data, meta)),
    logger: log,
    ...(tracing.bullmq === undefined ? {} : { telemetry: tracing.bullmq }),
  });
  for (const shardWorker of worker.workers) shardWorker.on('failed', () => metrics.jobFailed());
  await Promise.all(worker.workers.map((shardWorker) => shardWorker.waitUntilReady()));
  if (stopping) return;
  // Notifications (docs/notifications.md): routed from the request audit stream, delivered from their own queue.
  const notifications = createNotificationStore({ redis, keys });
  // Per-agent throttle, shared in Redis by every worker: the first requests of a window one by one, then one digest.
  const notifyThrottle = createNotificationThrottle({ redis, keys, maxPerWindow: config.notify.perAgentMax, windowMs: config.notify.perAgentWindowMs });
  // Decision links: the secret every gateway shares (AHP_LINK_SECRET, or the one the first process wrote to Redis).
  const linkSecret = await loadDecisionLinkSecret(redis, keys, config.notify.linkSecret);
  // Web Push: the deployment's VAPID keys (generated at first start, kept in Redis) and the operators' subscriptions.
  const vapid = await loadVapidKeys(redis, keys);
  notifyQueue = createNotificationQueue({ redis, keys, attempts: config.notify.attempts, backoffMs: config.notify.backoffMs, logger: log });
  notifyWorker = createNotificationWorker({
    redis,
    keys,
    concurrency: config.notify.concurrency,
    logger: log,
    processor: createNotificationDelivery({
      store: notifications,
      digestCount: (agentId, windowStartMs) => notifyThrottle.beyond(agentId, windowStartMs),
      env: process.env,
      timeoutMs: config.notify.timeoutMs,
      logger: log,
      stillWaiting: async (requestId) => (await stores.requests.get(requestId))?.state.status === 'pending',
      links: { secret: linkSecret, ttlMs: config.notify.linkTtlMs },
      push: { subscriptions: createPushSubscriptionStore({ redis, keys }), vapid, subject: config.notify.vapidSubject, allowHttp: config.notify.pushAllowHttp },
    }),
  });
  notifyDispatcher = createNotificationDispatcher({
    redis,
    keys,
    workerId: config.workerId,
    queue: notifyQueue,
    store: notifications,
    active: () => ({ config: runtime.active().notifications, version: runtime.active().version }),
    consoleUrl: config.notify.consoleUrl,
    logger: log,
    throttle: notifyThrottle,
  });
  await notifyWorker.worker.waitUntilReady();
  await notifyDispatcher.start();
  if (stopping) return;
  // Replays of candidate configurations: their own queue, a small concurrency, never the hook queue's slots.
  replayWorker = createConfigReplayWorker({
    redis,
    keys,
    concurrency: config.replay.concurrency,
    logger: log,
    processor: createConfigReplayProcessor({ log: replayLog, plugins, budgetMs: config.oracleBudgetMs, logger: log, hooksBusy: () => hookActivity.busy() }),
  });
  await replayWorker.worker.waitUntilReady();
  if (stopping) return;
  const evaluated = processor;
  presence = await startWorkerPresence({
    health: createHealthStore({ redis, keys }),
    workerId: config.workerId,
    concurrency: config.concurrency,
    jobsProcessed: () => evaluated.stats().evaluated + evaluated.stats().skippedPastDeadline,
    configVersion: () => runtime.active().version,
    logger: log,
  });

  ready = true;
  process.stdout.write(
    `${JSON.stringify({ event: 'ready', service: SERVICE, worker_id: config.workerId, pid: process.pid, concurrency: config.concurrency, metrics_port: metricsServer.port })}\n`,
  );
  log.info(
    {
      oracles: oracles.map((o) => o.name),
      plugins: config.oraclePlugins,
      configVersion: runtime.active().version ?? null,
      keyPrefix: config.keyPrefix,
      concurrency: config.concurrency,
      oracleBudgetMs: config.oracleBudgetMs,
      metrics: `http://${config.metricsHost}:${metricsServer.port}/metrics`,
    },
    'oracle worker ready',
  );
}

process.on('SIGTERM', (signal) => void shutdown(signal));
process.on('SIGINT', (signal) => void shutdown(signal));
process.on('uncaughtException', (error) => fail(1, 'uncaught exception; exiting', error));
process.on('unhandledRejection', (reason) => fail(1, 'unhandled promise rejection; exiting', reason));

start().catch((error: unknown) => {
  // A Redis configuration no retry fixes (a standalone node listed as a cluster, uncovered slots, a shard count mismatch).
  if (!stopping && (error as { code?: unknown } | null)?.code === 'E_REDIS_TOPOLOGY') fail(EXIT_CONFIG, `redis configuration refused: ${(error as Error).message}`, error);
  if (!stopping) fail(1, `startup failed: ${error instanceof Error ? error.message : String(error)}`, error);
});
