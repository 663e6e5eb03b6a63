/**
 * Applies one planned fault to the running system and waits until it is over from the outside:
 * the killed process replaced, the stopped one continued, Redis answering again, the agents'
 * sockets dropped. Whether the system recovered is for the ledger to say, not for this module.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceProcess } from '@ahp/stack';
import type { AgentFleet } from './agent-fleet.js';
import { Cluster } from './cluster.js';
import type { EvaluationLog } from './evaluation-log.js';
import { pickVictim, type FaultKind, type PlannedFault } from './fault-plan.js';
import type { HookLedger } from './hook-ledger.js';

/** What happened when a fault was applied. */
export interface FaultRecord {
  readonly index: number;
  readonly kind: FaultKind;
  /** What was hit, e.g. `worker-3`, `gateway-2`, `redis`, `alice, bob`. */
  readonly target: string;
  /** Epoch ms when the fault struck. */
  readonly injectedAt: number;
  /** Epoch ms when it was over from the outside (replacement ready, SIGCONT sent, Redis up). */
  readonly healedAt: number;
  /**
   * Worker faults: the hooks the worker was evaluating (started, not settled at the agent).
   * Recovery waits for these.
   */
  readonly affectedHooks?: readonly string[];
  /**
   * `kill-gateway`: the agents connected to it; `drop-sockets`: the agents that lost their socket.
   * Recovery waits for their hooks.
   */
  readonly affectedAgents?: readonly string[];
  /** `stop-worker`: how long it stayed stopped. */
  readonly pauseMs?: number;
}

/** Everything a fault may touch or look at. */
export interface FaultContext {
  readonly cluster: Cluster;
  readonly fleet: AgentFleet;
  readonly ledger: HookLedger;
  readonly evaluations: EvaluationLog;
}

/**
 * The environment broke in a way the run cannot work around (e.g. Redis came back on another
 * port, which none of the processes know). Not a finding about the product.
 */
export class ChaosEnvironmentError extends Error {
  override readonly name = 'ChaosEnvironmentError';
}

/** Applies `fault`; see the module comment. */
export async function injectFault(fault: PlannedFault, context: FaultContext): Promise<FaultRecord> {
  switch (fault.kind) {
    case 'kill-worker':
      return killWorker(fault, context);
    case 'stop-worker':
      return stopWorker(fault, context);
    case 'kill-gateway':
      return killGateway(fault, context);
    case 'restart-redis':
      return restartRedis(fault, context);
    case 'drop-sockets':
      return dropSockets(fault, context);
  }
}

/** Per live worker, the hooks it is evaluating now. */
async function jobsInFlight(context: FaultContext, workers: readonly ServiceProcess[]): Promise<Map<ServiceProcess, string[]>> {
  await context.evaluations.refresh();
  const unsettled = new Set(context.ledger.unsettled().map((hook) => hook.hookId));
  return new Map(
    workers.map((worker) => [worker, [...new Set(context.evaluations.byPid(worker.pid).map((e) => e.hookId))].filter((id) => unsettled.has(id))]),
  );
}

/** A worker that is mid-job when there is one (that is the interesting case), else any live worker. */
async function chooseWorker(fault: PlannedFault, context: FaultContext): Promise<{ worker: ServiceProcess; jobs: string[] }> {
  const busy = await jobsInFlight(context, context.cluster.liveWorkers());
  const midJob = [...busy].filter(([, jobs]) => jobs.length > 0).map(([worker]) => worker);
  const worker = pickVictim(midJob.length > 0 ? midJob : [...busy.keys()], fault.pick);
  if (worker === undefined) throw new ChaosEnvironmentError('no live worker left to inject a fault into');
  return { worker, jobs: busy.get(worker) ?? [] };
}

async function killWorker(fault: PlannedFault, context: FaultContext): Promise<FaultRecord> {
  const { worker, jobs } = await chooseWorker(fault, context);
  const injectedAt = Date.now();
  await context.cluster.kill(worker);
  await context.cluster.replaceWorker();
  return { index: fault.index, kind: fault.kind, target: worker.name, injectedAt, healedAt: Date.now(), affectedHooks: jobs };
}

async function stopWorker(fault: PlannedFault, context: FaultContext): Promise<FaultRecord> {
  const { worker, jobs } = await chooseWorker(fault, context);
  const pauseMs = fault.pauseMs ?? 0;
  const injectedAt = Date.now();
  worker.kill('SIGSTOP');
  try {
    await sleep(pauseMs);
  } finally {
    worker.kill('SIGCONT');
  }
  return { index: fault.index, kind: fault.kind, target: worker.name, injectedAt, healedAt: Date.now(), affectedHooks: jobs, pauseMs };
}

async function killGateway(fault: PlannedFault, context: FaultContext): Promise<FaultRecord> {
  const connected = context.fleet.connectedByGateway();
  const live = context.cluster.liveGateways();
  const withAgents = live.filter((gateway) => connected.has(Cluster.gatewayId(gateway)));
  const gateway = pickVictim(withAgents.length > 0 ? withAgents : live, fault.pick);
  if (gateway === undefined) throw new ChaosEnvironmentError('no live gateway left to inject a fault into');
  const agents = connected.get(Cluster.gatewayId(gateway)) ?? [];
  const injectedAt = Date.now();
  await context.cluster.kill(gateway);
  await context.cluster.replaceGateway(gateway);
  return { index: fault.index, kind: fault.kind, target: gateway.name, injectedAt, healedAt: Date.now(), affectedAgents: agents };
}

async function restartRedis(fault: PlannedFault, context: FaultContext): Promise<FaultRecord> {
  const redis = context.cluster.redis;
  const port = redis.port;
  const injectedAt = Date.now();
  await redis.restart();
  if (redis.port !== port) {
    throw new ChaosEnvironmentError(`Redis came back on port ${String(redis.port)} instead of ${String(port)} (another process took the port)`);
  }
  return { index: fault.index, kind: fault.kind, target: 'redis', injectedAt, healedAt: Date.now() };
}

async function dropSockets(fault: PlannedFault, context: FaultContext): Promise<FaultRecord> {
  const injectedAt = Date.now();
  const dropped = context.fleet.dropSockets(fault.sockets ?? 1, fault.pick);
  return {
    index: fault.index,
    kind: fault.kind,
    target: dropped.length > 0 ? dropped.join(', ') : '(no socket open)',
    injectedAt,
    healedAt: Date.now(),
    affectedAgents: dropped,
  };
}
