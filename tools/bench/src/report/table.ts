/**
 * The human table of a run: conditions, baselines, product figures, targets with their verdicts,
 * and where the CPU went. Printed at the end of every run and kept in BENCHMARKS.md.
 */
import { cpuSpreadText } from '../redis/shard-share.js';
import type { BenchResults, Measured, ProcessProfile, ShardsResult } from '../results.js';
import type { LatencySummary } from '../stats/latency.js';
import type { CpuPerOperation, CpuWindow } from '../system/cpu-meter.js';
import { count, duration, kib, loadName, ms } from './format.js';
import { formatVerdict, type TargetResult } from './targets.js';

const pad = (text: string, width: number) => (text.length >= width ? `${text} ` : text.padEnd(width));

function latencyColumns(figure: Measured | undefined): string {
  if (figure === undefined) return pad('—', 33);
  const { latency } = figure;
  return `${pad(ms(latency.p50), 11)}${pad(ms(latency.p99), 11)}${pad(ms(latency.p999), 11)}`;
}

function row(label: string, figure: Measured | undefined, extra = ''): string {
  const errors = figure !== undefined && figure.errors > 0 ? ` (${count(figure.errors)} errors)` : '';
  return `${pad(label, 46)}${latencyColumns(figure)}${extra}${errors}`;
}

/**
 * `gateway-1 95%, redis 60% (waited 30%), …`: busiest first, the processes that did anything, and
 * how long a process waited for a CPU when that was notable.
 */
export function cpuLine(cpu: CpuWindow | undefined): string {
  if (cpu === undefined) return '—';
  return cpu.processes
    .filter((process) => process.cpuPercent >= 1)
    .map((process) => `${process.name} ${Math.round(process.cpuPercent)}%${process.waitPercent >= 5 ? ` (waited ${Math.round(process.waitPercent)}%)` : ''}`)
    .join(', ');
}

/** The console phase: the fleet page and a search in Chromium, each with the operator API's own time and the goal beside it. */
function consoleRows(result: BenchResults['product']['console']): string[] {
  if (result === undefined) return [];
  if (result.status === 'skipped') return [`${pad('console: fleet page, search', 46)}skipped: ${result.reason}`];
  const line = (label: string, figure: { browser: LatencySummary; api: LatencySummary }, goal: number) =>
    `${pad(label, 46)}${pad(ms(figure.browser.p50), 11)}${pad(ms(figure.browser.p99), 11)}${pad(ms(figure.browser.p999), 11)}API p50 ${ms(figure.api.p50)}; goal ≤ ${ms(goal)}`;
  return [
    line(`console fleet page, ${count(result.agents)} agents`, result.pageLoad, result.goalsMs.pageLoad),
    line(`console search, ${count(result.agents)} agents`, result.search, result.goalsMs.search),
  ];
}

/** `, 0.41 ms CPU/decision`: the process's busy time in the window over the decisions completed in it. */
function cpuPerDecision(profile: ProcessProfile): string {
  const decisions = (profile.decisionsPerSecond * profile.summary.sampledMs) / 1000;
  return decisions > 0 ? `, ${ms(profile.summary.busyMs / decisions)} CPU/decision` : '';
}

/** `1.52 ms (gateway-1 0.41, redis 0.38, …)`: CPU per operation, busiest process first. */
export function perOperationLine(cost: CpuPerOperation | undefined): string {
  if (cost === undefined || cost.processes.length === 0) return '—';
  return `${cost.totalMs.toFixed(2)} ms (${cost.processes.map((entry) => `${entry.name} ${entry.ms.toFixed(2)}`).join(', ')})`;
}

function targetLine(target: TargetResult): string {
  const unit = target.unit === 'ms' ? ' ms' : target.unit === '/s' ? '/s' : ` ${target.unit}`;
  const value = (number: number | undefined) =>
    number === undefined || !Number.isFinite(number) ? '—' : `${number >= 100 ? count(number) : Number(number.toPrecision(3))}${unit}`;
  const figures = target.status === 'SKIP' ? target.reason ?? '' : `${value(target.actual)} vs ${target.comparison === 'at_most' ? '≤' : '≥'} ${value(target.limit)}`;
  return `${pad(formatVerdict(target), 12)}${pad(target.label, 88)}${figures}`;
}

/** The shards phase: each side's latency and rate, its commands per decision per master, and the busiest master against an even share. */
function shardsRows(shards: ShardsResult | undefined): string[] {
  if (shards === undefined) return [row('one Redis vs a cluster, flat out', undefined)];
  if (shards.status === 'skipped') return [row('one Redis vs a cluster, flat out', undefined, `skipped: ${shards.reason}`)];
  return [shards.single, shards.cluster].map((side) => {
    const label = `${side.redis}, flat out`;
    if (side.status === 'failed') return row(label, undefined, `FAILED: ${side.error.split('\n')[0]?.slice(0, 160) ?? ''}`);
    const { spread } = side;
    const perShard = spread.shards.length > 1 ? ` (${spread.shards.map((shard) => shard.perDecision).join(' / ')} per master)` : '';
    const skew = spread.shards.length > 1 ? `; busiest master ${spread.skew}× an even share (goal ≤ ${shards.skewGoal}×)` : '';
    const cpu = cpuSpreadText(spread);
    return row(label, side, `${count(side.decisionsPerSecond)} decisions/s, ${spread.perDecision} Redis commands/decision${perShard}${skew}${cpu ? `; ${cpu}` : ''}`);
  });
}

export function renderTable(results: BenchResults): string {
  const { baselines: base, product, machine, versions } = results;
  const lines: string[] = [];
  const when = results.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  lines.push(`AHP benchmark — ${results.mode} mode — ${when}${results.durationSeconds === undefined ? '' : ` — took ${duration(results.durationSeconds)}`}`);
  lines.push(`command:  ${results.command}`);
  lines.push(
    `machine:  ${machine.cpuModel}, nproc ${machine.nproc}, ${machine.memoryGiB} GiB RAM, ${machine.kernel}; load average ${machine.loadAverageAtStart.join(' ')} at start${machine.loadAverageAtEnd ? `, ${machine.loadAverageAtEnd.join(' ')} at end` : ''}`,
  );
  lines.push(
    `versions: node ${versions.node}, redis-server ${versions.redisServer}, @nestjs/core ${versions['@nestjs/core']}, @nestjs/platform-ws ${versions['@nestjs/platform-ws']}, bullmq ${versions.bullmq}, ws ${versions.ws}, redis (node-redis) ${versions.redis}`,
  );
  lines.push(`workload: ${results.workload.trigger} hooks, ${count(results.workload.contextBytes)}-byte context; ${results.workload.mix}`);
  lines.push(`rules:    workers: ${results.workload.workerRules}; eval baseline: ${results.workload.evalRules ?? '—'}`);
  lines.push(
    `setup:    ${results.setup.gateways} gateway, ${results.setup.workers} workers × ${results.setup.workerConcurrency}, ${results.setup.agents} SDK agents, Redis with AOF (everysec); open files: ${results.fileLimit.action}`,
  );

  lines.push('', `${pad('BASELINES', 46)}${pad('p50', 11)}${pad('p99', 11)}${pad('p99.9', 11)}throughput`);
  lines.push(row('redis   PING', base.redis?.roundTrip));
  lines.push(row(`ws      echo (${count(base.ws?.messageBytes)} B)`, base.ws?.roundTrip, base.ws ? `${count(base.ws.messagesPerSecond)} msg/s` : ''));
  lines.push(row('nest    echo via @SubscribeMessage dispatch', base.nest?.roundTrip, base.nest ? `${count(base.nest.messagesPerSecond)} msg/s` : ''));
  lines.push(row('nest    echo, raw listener (as the gateway)', base.nestRaw?.roundTrip, base.nestRaw ? `${count(base.nestRaw.messagesPerSecond)} msg/s` : ''));
  lines.push(
    row(
      'bullmq  add → worker → XADD → XREAD',
      base.bullmq?.roundTrip,
      base.bullmq ? `${count(base.bullmq.maxJobsPerSecond)} jobs/s (${base.bullmq.workers} × ${base.bullmq.concurrencyPerWorker})` : '',
    ),
  );
  lines.push(row('spawn   node command-hook.js < event.json', base.spawn?.roundTrip));
  lines.push(row('eval    evaluateHook, in-process', base.eval?.call, base.eval ? `${count(base.eval.callsPerSecond)} calls/s` : ''));
  for (const step of base.rules?.steps ?? []) {
    const label = `rules   +${count(step.rules)} generated${step.indexed ? '' : ', index off'}`;
    lines.push(row(label, { latency: step.latency, errors: 0, errorCodes: {} }, `compile ${count(Math.round(step.compileMs))} ms`));
  }

  lines.push('', `${pad('PRODUCT', 46)}${pad('p50', 11)}${pad('p99', 11)}${pad('p99.9', 11)}throughput`);
  lines.push(row('decision round trip, one at a time', product.decision?.roundTrip));
  lines.push(row('ahp hook claude-code, a process per call', product.commandHook?.roundTrip));
  lines.push(
    row(
      `flat out (${product.saturation?.concurrency ?? '—'} in flight)`,
      product.saturation,
      product.saturation ? `${count(product.saturation.decisionsPerSecond)} decisions/s` : '',
    ),
  );
  lines.push(`${pad('max sustained (open loop, p99 ≤ 50 ms, 0 errors)', 79)}${product.maxSustainedPerSecond === undefined ? '—' : `${count(product.maxSustainedPerSecond)} decisions/s`}`);
  lines.push(row(`open loop at ${count(product.halfLoad?.rate)}/s (half of that)`, product.halfLoad));
  const decisionCommands = product.decision?.commandsPerDecision;
  const loadedCommands = product.halfLoad?.commandsPerDecision;
  lines.push(
    `${pad('Redis commands per decision', 46)}${decisionCommands?.perOperation ?? '—'} one at a time, ${loadedCommands?.perOperation ?? '—'} at half load` +
      ` (bare BullMQ per job: ${base.bullmq?.commandsPerJob.perOperation ?? '—'} / ${base.bullmq?.commandsPerJobLoaded.perOperation ?? '—'})`,
  );
  if (decisionCommands !== undefined) {
    lines.push(`${pad('', 46)}${decisionCommands.byCommand.slice(0, 10).map((entry) => `${entry.command} ${entry.perOperation}`).join(', ')}`);
  }
  for (const scaling of product.scaling ?? []) {
    lines.push(
      `${pad(`worker scaling: ${scaling.workers} worker${scaling.workers === 1 ? '' : 's'}, flat out`, 46)}${pad(`${count(scaling.decisionsPerSecond)}/s`, 11)}${pad(`${scaling.cpuPerDecision.totalMs.toFixed(2)} ms CPU/decision`, 23)}${scaling.bottleneck}`,
    );
  }
  const memory = product.memory;
  lines.push(
    `${pad(`memory per idle connection (${count(memory?.connected)} agents)`, 46)}${memory === undefined ? '—' : `RSS ${kib(memory.rssPerConnection)}, JS heap ${kib(memory.heapPerConnection)}, external ${kib(memory.externalPerConnection)} (heartbeat ${memory.heartbeatMs / 1000} s)`}`,
  );
  const capacity = product.capacity;
  lines.push(
    `${pad('connected agents, 1 decision/agent/min', 46)}${
      capacity === undefined
        ? '—'
        : capacity.steps.map((step) => `${count(step.agents)}: ${step.passed ? 'ok' : 'FAIL'} p95 ${ms(step.latency.p95)}${step.errors > 0 ? ` ${count(step.errors)} err` : ''}`).join(' → ')
    }`,
  );
  const approvals = product.approvals;
  lines.push(row('approval across gateways', approvals?.status === 'measured' ? approvals.latency : undefined, approvals?.status === 'skipped' ? `skipped: ${approvals.reason}` : ''));
  lines.push(...consoleRows(product.console));
  const mcp = product.mcp;
  lines.push(row('MCP tools/call, direct to the fixture', mcp?.direct, ''));
  lines.push(row('MCP tools/call through the gateway', mcp?.gateway, mcp === undefined ? '' : `overhead p50 ${ms(mcp.overheadMs.p50)}, p99 ${ms(mcp.overheadMs.p99)}`));
  lines.push(...shardsRows(product.shards));

  if (product.rateSteps !== undefined && product.rateSteps.length > 0) {
    lines.push('', `${pad('OPEN-LOOP STEPS  offered/s', 28)}${pad('done/s', 10)}${pad('p50', 11)}${pad('p99', 11)}${pad('errors', 8)}${pad('send lag', 11)}CPU`);
    for (const step of product.rateSteps) {
      lines.push(
        `${pad(`${step.passed ? 'ok  ' : 'FAIL'}             ${count(step.rate)}`, 28)}${pad(count(step.achievedRate), 10)}${pad(ms(step.latency.p50), 11)}${pad(ms(step.latency.p99), 11)}${pad(count(step.errors), 8)}${pad(ms(step.maxStartLagMs), 11)}${cpuLine(step.cpu)}`,
      );
    }
  }

  lines.push('', 'TARGETS');
  for (const target of results.targets) lines.push(targetLine(target));

  const best = product.rateSteps?.filter((step) => step.passed).at(-1);
  lines.push('', 'CPU (% of one core)');
  lines.push(`  flat out:             ${cpuLine(product.saturation?.cpu)}`);
  lines.push(`  max sustained step:   ${cpuLine(best?.cpu)}`);
  lines.push(`  bare BullMQ flat out: ${cpuLine(base.bullmq?.cpu)}`);
  const cores = machine.nproc;
  const ceiling = (cost: CpuPerOperation | undefined) =>
    cost === undefined || cost.totalMs === 0 ? '' : ` → at most ~${count((cores * 1000) / cost.totalMs)}/s on ${cores} cores`;
  lines.push('', 'CPU PER OPERATION (all processes, flat out; predicts the rate the cores could reach)');
  lines.push(`  decision:        ${perOperationLine(product.saturation?.cpuPerDecision)}${ceiling(product.saturation?.cpuPerDecision)}`);
  lines.push(`  bare BullMQ job: ${perOperationLine(base.bullmq?.cpuPerJob)}${ceiling(base.bullmq?.cpuPerJob)}`);

  for (const profile of results.profiles ?? []) {
    lines.push(
      '',
      `PROFILE ${profile.process}, ${loadName(profile.load)}, ${count(profile.decisionsPerSecond)} decisions/s${cpuPerDecision(profile)} (self time, % of busy ${count(profile.summary.busyMs)} ms)`,
    );
    lines.push(`  by package:  ${profile.summary.byPackage.slice(0, 8).map((entry) => `${entry.name} ${entry.percent}%`).join(', ')}`);
    for (const fn of profile.summary.topFunctions.slice(0, 6)) lines.push(`  ${pad(`${fn.percent}%`, 7)}${fn.name}`);
  }

  const failed = results.phases.filter((phase) => phase.status === 'error');
  if (failed.length > 0) {
    lines.push('', 'PHASES THAT FAILED');
    for (const phase of failed) lines.push(`  ${phase.name}: ${phase.error?.split('\n')[0] ?? ''}`);
  }
  return lines.join('\n');
}
