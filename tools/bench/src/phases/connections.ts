/**
 * Connections: memory per idle authenticated agent connection (gateway RSS and heap after
 * garbage collection, before and after the agents connect), then how many connected agents one
 * gateway holds while each sends one decision a minute with the decision p95 within 250 ms.
 *
 * Runs its own stack: the gateway gets the memory probe preloaded (children/memory-probe.ts) and
 * starts with no history of earlier phases in its heap.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AgentLogin } from '../loadgen/protocol.js';
import { count, kib, ms } from '../report/format.js';
import { measured, type Phase, type PhaseContext } from '../orchestrator/context.js';
import { ProductStack } from '../orchestrator/product-stack.js';
import type { CapacityStep, MemoryResult } from '../results.js';
import { parseMemoryProbeLine, type MemoryReading } from '../shared/memory-probe-line.js';
import { latencyLine } from './common.js';

const PROBE = pathToFileURL(fileURLToPath(new URL('../children/memory-probe.js', import.meta.url))).href;

/** The capacity service level: decision p95 at one decision per agent per minute. */
export const CAPACITY_P95_LIMIT_MS = 250;
const DECISIONS_PER_AGENT_PER_MINUTE = 1;

/**
 * Files a gateway or the load generator needs besides one socket per agent (Redis connections,
 * the listener, pipes, the event loop's own descriptors), with room to spare.
 */
export const FILE_HEADROOM = 500;

/**
 * The capacity steps this machine can run: every step above `maxConnections` (what one process's
 * open-files limit allows) becomes `maxConnections`, once, so the phase still probes as high as
 * the machine lets it instead of failing on descriptors.
 */
export function feasibleSteps(steps: readonly number[], maxConnections: number): number[] {
  const clamped = steps.map((step) => Math.min(step, maxConnections)).filter((step) => step > 0);
  return [...new Set(clamped)].sort((a, b) => a - b);
}

/** Handshakes under way at once while agents connect. */
const PARALLEL_HANDSHAKES = 200;

/**
 * Source addresses for the agents' sockets. One source address gives about 28,000 ephemeral
 * ports towards one gateway port; eight loopback addresses leave room for 200,000.
 */
const LOCAL_ADDRESSES = Array.from({ length: 8 }, (_, index) => `127.0.0.${index + 1}`);

/** Agents the connection phases use: those after the SDK agents. */
export function connectionLogins(ctx: PhaseContext): readonly AgentLogin[] {
  return ctx.logins.slice(ctx.plan.agents);
}

/** Asks the gateway's memory probe for a reading and waits for it. */
class MemoryProbe {
  #waiting: ((reading: MemoryReading) => void) | undefined;

  /** Feed it every output line of the gateway. */
  onLine(line: string): void {
    const reading = parseMemoryProbeLine(line);
    if (reading !== undefined) this.#waiting?.(reading);
  }

  read(signal: (name: NodeJS.Signals) => void): Promise<MemoryReading> {
    return new Promise<MemoryReading>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the gateway did not answer the memory probe within 20 s')), 20_000);
      this.#waiting = (reading) => {
        clearTimeout(timer);
        this.#waiting = undefined;
        resolve(reading);
      };
      signal('SIGUSR2');
    });
  }
}

async function measureMemory(ctx: PhaseContext, stack: ProductStack, probe: MemoryProbe): Promise<MemoryResult> {
  const { plan, loadgen } = ctx;
  const gateway = stack.stack.gateways[0];
  if (gateway === undefined) throw new Error('no gateway');
  const signal = (name: NodeJS.Signals) => gateway.kill(name);
  const before = await probe.read(signal);
  const logins = connectionLogins(ctx).slice(0, plan.idleConnections);
  const report = await loadgen.open({ name: 'raw', url: stack.urls()[0] as string, logins: [...logins], parallel: PARALLEL_HANDSHAKES, localAddresses: LOCAL_ADDRESSES });
  ctx.say(`${count(report.connections)} agents connected${report.failed > 0 ? `, ${report.failed} failed (${report.failures.join('; ')})` : ''}; waiting one heartbeat`);
  // Every connection pinged and answered at least once, as an idle agent is in production.
  await new Promise((resolve) => setTimeout(resolve, plan.connectionHeartbeatMs + 1000));
  const after = await probe.read(signal);
  const connected = Math.max(1, report.connections);
  return {
    connections: logins.length,
    connected: report.connections,
    failed: report.failed,
    heartbeatMs: plan.connectionHeartbeatMs,
    before,
    after,
    rssPerConnection: Math.round((after.rss - before.rss) / connected),
    heapPerConnection: Math.round((after.heapUsed - before.heapUsed) / connected),
    externalPerConnection: Math.round((after.external - before.external) / connected),
  };
}

async function measureCapacity(ctx: PhaseContext, stack: ProductStack, alreadyConnected: number, counts: readonly number[]): Promise<CapacityStep[]> {
  const { plan, loadgen } = ctx;
  const all = connectionLogins(ctx);
  const url = stack.urls()[0] as string;
  const steps: CapacityStep[] = [];
  let connected = alreadyConnected;
  for (const agents of counts) {
    let connectFailures = 0;
    if (agents > connected) {
      const grown = await loadgen.open({ name: 'raw', url, logins: all.slice(connected, agents), parallel: PARALLEL_HANDSHAKES, localAddresses: LOCAL_ADDRESSES });
      connectFailures = grown.failed;
      connected = agents;
      if (grown.failed > 0) ctx.say(`${grown.failed} agents failed to connect: ${grown.failures.join('; ')}`);
    }
    const rate = (agents * DECISIONS_PER_AGENT_PER_MINUTE) / 60;
    const { result, cpu } = await ctx.measureCpu(stack.processes(), () =>
      loadgen.run('raw', { kind: 'open', rate, durationMs: plan.capacityHoldMs, drainMs: 10_000 }),
    );
    const alive = (await loadgen.open({ name: 'raw', url, logins: [], parallel: 1, localAddresses: [] })).connections;
    const figure = measured(result);
    const step: CapacityStep = {
      agents,
      connected: alive,
      connectFailures,
      rate: Math.round(rate * 100) / 100,
      ...figure,
      passed: figure.errors === 0 && connectFailures === 0 && alive >= agents && figure.latency.p95 <= CAPACITY_P95_LIMIT_MS,
      cpu,
    };
    steps.push(step);
    const gateway = cpu.processes.find((process) => process.name.startsWith('gateway'));
    ctx.say(
      `${count(agents)} agents (${count(alive)} still connected), ${step.rate}/s: ${step.passed ? 'ok  ' : 'FAIL'} p95 ${ms(figure.latency.p95)}, ${latencyLine(figure)}; gateway ${gateway?.cpuPercent ?? '?'}% CPU, ${gateway?.rssMiB ?? '?'} MiB`,
    );
    if (!step.passed) break;
  }
  return steps;
}

export const connections: Phase = {
  key: 'connections',
  name: 'connections',
  resultPath: 'product.memory, product.capacity',
  describe: (plan) =>
    `${count(plan.idleConnections)} idle agents (heartbeat ${plan.connectionHeartbeatMs / 1000} s) for memory, then ${plan.capacitySteps.map(count).join(' → ')} agents at 1 decision/agent/min`,
  async run(ctx) {
    await ctx.releaseProduct();
    const probe = new MemoryProbe();
    const stack = await ProductStack.start(ctx, {
      name: 'connections',
      workers: ctx.results.setup.workers,
      nodeArgs: ['--expose-gc', '--import', PROBE],
      gatewayEnv: { AHP_HEARTBEAT_MS: String(ctx.plan.connectionHeartbeatMs) },
      onLine: (service, line) => {
        if (service.startsWith('gateway')) probe.onLine(line);
      },
    });
    try {
      const memory = await measureMemory(ctx, stack, probe);
      ctx.results.product.memory = memory;
      ctx.say(`memory per idle connection: RSS ${kib(memory.rssPerConnection)}, JS heap ${kib(memory.heapPerConnection)}, external ${kib(memory.externalPerConnection)}`);
      const fileLimit = ctx.results.fileLimit.after.soft;
      const maxConnections = fileLimit - FILE_HEADROOM;
      const counts = feasibleSteps(ctx.plan.capacitySteps, maxConnections);
      const ceiling =
        Math.max(...ctx.plan.capacitySteps) > maxConnections
          ? {
              connections: maxConnections,
              reason: `a process may open at most ${fileLimit.toLocaleString('en-US')} files here (${ctx.results.fileLimit.action}), so one gateway can hold at most about ${maxConnections.toLocaleString('en-US')} sockets`,
            }
          : undefined;
      if (ceiling !== undefined) ctx.say(`capacity steps capped at ${count(maxConnections)}: ${ceiling.reason}`);
      // The capacity steps start from nobody connected, so they can begin below the memory
      // phase's count; closed connections are given a moment to leave the gateway.
      await ctx.loadgen.close('raw');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const steps = await measureCapacity(ctx, stack, 0, counts);
      const passing = steps.filter((step) => step.passed).map((step) => step.agents);
      ctx.results.product.capacity = {
        p95LimitMs: CAPACITY_P95_LIMIT_MS,
        steps,
        maxAgents: passing.length === 0 ? null : Math.max(...passing),
        ...(ceiling === undefined ? {} : { ceiling }),
      };
      return `RSS ${kib(memory.rssPerConnection)} per idle connection; holds ${passing.length === 0 ? 'none of the tried counts' : count(Math.max(...passing))} agents within p95 ≤ ${CAPACITY_P95_LIMIT_MS} ms`;
    } finally {
      await ctx.loadgen.close('raw').catch(() => undefined);
      await stack.stop();
    }
  },
};
