/**
 * The load generator process. The orchestrator forks it (one per run) and sends it requests over
 * IPC: open a target, run a closed or open loop over it, close it. It measures latencies itself,
 * next to the sockets, and sends back the raw samples. Being its own process, its CPU use shows
 * separately in the report and it never competes with the orchestrator's bookkeeping.
 */
import { closedLoop, openLoop, type LoadRun } from '../load/drivers.js';
import type { LoadReply, LoadRequest, OpenReport, TargetName, TargetSpec } from '../loadgen/protocol.js';
import { openApprovalTarget } from '../loadgen/targets/approval-target.js';
import { openBullmqTarget } from '../loadgen/targets/bullmq-target.js';
import { openEvalTarget } from '../loadgen/targets/eval-target.js';
import { RawAgentsTarget } from '../loadgen/targets/raw-target.js';
import { openRedisTarget } from '../loadgen/targets/redis-target.js';
import { openSdkTarget } from '../loadgen/targets/sdk-target.js';
import { openSpawnTarget } from '../loadgen/targets/spawn-target.js';
import type { LoadTarget } from '../loadgen/targets/target.js';
import { openWsTarget } from '../loadgen/targets/ws-target.js';

const targets = new Map<TargetName, LoadTarget>();

/**
 * Operations still under way per target. An open loop stops waiting after its drain time, but
 * the operations it gave up on may still complete; the orchestrator waits for them (`idle`)
 * before the next measurement, so one step's backlog does not land in the next one's figures.
 */
const outstanding = new Map<TargetName, number>();

function counted(name: TargetName, target: LoadTarget): (index: number) => Promise<unknown> {
  return (index) => {
    outstanding.set(name, (outstanding.get(name) ?? 0) + 1);
    return target.op(index).finally(() => outstanding.set(name, (outstanding.get(name) ?? 1) - 1));
  };
}

async function idle(name: TargetName, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  while ((outstanding.get(name) ?? 0) > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  return outstanding.get(name) ?? 0;
}

async function open(spec: TargetSpec): Promise<OpenReport> {
  if (spec.name === 'raw') {
    // Connections are added step by step (the capacity phase grows the population), so an open
    // raw target is grown rather than replaced.
    let raw = targets.get('raw') as RawAgentsTarget | undefined;
    if (raw === undefined) {
      raw = new RawAgentsTarget(spec.url);
      targets.set('raw', raw);
    }
    return raw.grow(spec.logins, spec.parallel, spec.localAddresses);
  }
  await targets.get(spec.name)?.close();
  const target = await create(spec);
  targets.set(spec.name, target);
  return target.report;
}

function create(spec: Exclude<TargetSpec, { name: 'raw' }>): Promise<LoadTarget> | LoadTarget {
  switch (spec.name) {
    case 'redis':
      return openRedisTarget(spec.url);
    case 'ws':
      return openWsTarget(spec.url, spec.connections, spec.envelope);
    case 'bullmq':
      return openBullmqTarget(spec);
    case 'spawn':
      return openSpawnTarget(spec);
    case 'eval':
      return openEvalTarget(spec.workspaceRoot);
    case 'sdk':
      return openSdkTarget(spec.urls, spec.logins);
    case 'approval':
      return openApprovalTarget(spec);
  }
}

async function handle(request: LoadRequest): Promise<OpenReport | LoadRun | number | null> {
  switch (request.type) {
    case 'open':
      return open(request.target);
    case 'run': {
      const target = targets.get(request.target);
      if (target === undefined) throw new Error(`target ${request.target} is not open`);
      const op = counted(request.target, target);
      return request.loop.kind === 'closed' ? closedLoop({ ...request.loop, op }) : openLoop({ ...request.loop, op });
    }
    case 'close': {
      await targets.get(request.target)?.close();
      targets.delete(request.target);
      return null;
    }
    case 'idle':
      return idle(request.target, request.timeoutMs);
  }
}

function reply(message: LoadReply): void {
  process.send?.(message);
}

process.on('message', (request: LoadRequest) => {
  handle(request).then(
    (result) => reply({ id: request.id, ok: true, result }),
    (error: unknown) => reply({ id: request.id, ok: false, error: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
});
// The orchestrator going away (crash, Ctrl-C) closes the channel; nothing here should outlive it.
process.on('disconnect', () => process.exit(0));
reply({ id: 0, ok: true, result: 'ready' });
