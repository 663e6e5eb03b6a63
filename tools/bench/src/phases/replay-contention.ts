/**
 * `replay`: whether a large configuration replay (docs/hooks.md, "Replay a candidate
 * configuration") slows the decisions of the workers it runs on. Replays run on the oracle
 * workers, in the same process as hook jobs, so "never blocks the hot path" is a claim about how
 * the replay job shares the event loop. On the shared product stack:
 *
 * 1. Records {@link RECORDED_HOOKS} hooks in the replay log through the store (`ReplayLog.append`,
 *    the worker's own writer): copies of the contexts the warm-up's real decisions recorded, with
 *    new hook ids. Through real decisions this would take most of a minute on two cores.
 * 2. Alternating windows (without, with, without, with, …) of decisions one at a time: p50/p99 and
 *    CPU per decision of every process. In a "with" window one replay per worker runs over those
 *    hooks the whole time (a replay that ends is replaced at once), so every hook job shares its
 *    worker with a replay. The CPU of a "with" window includes the replay's own work: it is
 *    reported, not hidden, and the replay's pace (hooks replayed per second) beside it.
 *
 * The candidate is the live configuration plus a comment: the same rules, so it costs what the
 * live evaluation costs and changes no decision.
 */
import { randomUUID } from 'node:crypto';
import type { ConfigReplayJobData, HookDecision, ReplayRecord } from '@ahp/protocol';
import {
  connectRedis,
  createConfigReplayQueue,
  createKeys,
  createReplayLog,
  type ConfigReplayQueue,
  type RedisClient,
  type ReplayLogAppend,
} from '@ahp/store';
import type { LoadRun } from '../load/drivers.js';
import { measured, type Phase, type PhaseContext } from '../orchestrator/context.js';
import { ms } from '../report/format.js';
import type { ReplayContentionSide } from '../results.js';
import { summarize } from '../stats/latency.js';
import { cpuPerOperation } from '../system/cpu-meter.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
/** Hooks in the replay log the replays read: a "large" replay in the issue's sense (≥ 20k). */
export const RECORDED_HOOKS = 24_000;
/** Appends in flight while recording. */
const RECORD_IN_FLIGHT = 64;
/** Without/with pairs. */
const ROUNDS = 3;

/**
 * `count` replay-log appends made of `samples` (round robin): each a new hook id, its evaluation
 * time `startMs + i` (so the copies keep their order and fall in one window), and the sample's
 * decision level as the recorded decision (its rules are not kept: they only name what fired).
 */
export function syntheticAppends(samples: readonly ReplayRecord[], count: number, startMs: number, newId: () => string = randomUUID): ReplayLogAppend[] {
  if (samples.length === 0) throw new Error('no recorded hooks to copy');
  const appends: ReplayLogAppend[] = [];
  for (let i = 0; i < count; i += 1) {
    const sample = samples[i % samples.length] as ReplayRecord;
    const hookId = newId();
    const at = startMs + i;
    const intensity = sample.decision.level === 'allow' ? null : sample.decision.level;
    const decision: HookDecision = {
      hook_id: hookId,
      trigger: sample.trigger,
      allowed: intensity !== 'block',
      intensity,
      signals: [],
      modifications: [],
      warnings: [],
      decided_by: sample.decision.decided_by,
      ...(sample.config_version === undefined ? {} : { config_version: sample.config_version }),
      decided_at: new Date(at).toISOString(),
    };
    appends.push({
      hookId,
      trigger: sample.trigger,
      agent: sample.agent,
      sessionId: sample.session_id,
      context: sample.context ?? {},
      decision,
      configVersion: sample.config_version,
      at,
    });
  }
  return appends;
}

/** `with / without`, two decimals; `null` when there is nothing to divide by. */
export function ratio(without: number, withReplay: number): number | null {
  return without > 0 ? Math.round((withReplay / without) * 100) / 100 : null;
}

interface Window {
  run: LoadRun;
  cpuMs: number;
  perProcess: { name: string; ms: number }[];
  /** Hooks the replays read during the window (with replays only). */
  replayed: number;
}

function side(windows: readonly Window[]): ReplayContentionSide {
  const merged = Float64Array.from(windows.flatMap((w) => [...w.run.samples]));
  const processes = new Map<string, number>();
  for (const w of windows) for (const p of w.perProcess) processes.set(p.name, (processes.get(p.name) ?? 0) + p.ms / windows.length);
  const seconds = windows.reduce((sum, w) => sum + w.run.elapsedMs, 0) / 1000;
  return {
    decision: {
      latency: summarize(merged),
      errors: windows.reduce((sum, w) => sum + w.run.errors, 0),
      errorCodes: Object.assign({}, ...windows.map((w) => measured(w.run).errorCodes)) as Record<string, number>,
    },
    cpuPerDecisionMs: Math.round((windows.reduce((sum, w) => sum + w.cpuMs, 0) / windows.length) * 1000) / 1000,
    cpuPerDecisionByProcess: [...processes].map(([name, value]) => ({ name, ms: Math.round(value * 1000) / 1000 })).sort((a, b) => b.ms - a.ms),
    replayedPerSecond: seconds > 0 ? Math.round(windows.reduce((sum, w) => sum + w.replayed, 0) / seconds) : 0,
    windows: windows.map((w) => ({ p50: Math.round(summarize(w.run.samples).p50 * 1000) / 1000, p99: Math.round(summarize(w.run.samples).p99 * 1000) / 1000, cpuMs: w.cpuMs })),
  };
}

/** Keeps `slots` replays running over the recorded window until stopped; counts the hooks they read. */
function replayKeeper(queue: ConfigReplayQueue, job: Omit<ConfigReplayJobData, 'replay_id' | 'requested_at'>, slots: number) {
  const running: string[] = [];
  let finishedRead = 0;
  let completed = 0;
  let stopped = false;
  const failures: string[] = [];

  async function submit(): Promise<string> {
    const id = randomUUID();
    await queue.submit({ ...job, replay_id: id, requested_at: new Date().toISOString() });
    return id;
  }

  async function readOf(ids: readonly string[]): Promise<number> {
    let read = 0;
    for (const id of ids) read += (await queue.status(id))?.progress.read ?? 0;
    return read;
  }

  let loop: Promise<void> | undefined;
  return {
    /** Submits the replays and returns once every one of them has read its first page. */
    async start(): Promise<void> {
      for (let i = 0; i < slots; i += 1) running.push(await submit());
      const until = Date.now() + 30_000;
      for (;;) {
        const states = await Promise.all(running.map((id) => queue.status(id)));
        if (states.every((s) => s?.state === 'active' && s.progress.read > 0)) break;
        if (Date.now() > until) throw new Error(`the replays did not start within 30 s: ${states.map((s) => s?.state ?? 'unknown').join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      loop = (async () => {
        while (!stopped) {
          for (const [i, id] of running.entries()) {
            const status = await queue.status(id);
            if (status === null || status.state === 'active' || status.state === 'waiting') continue;
            if (status.state === 'completed') completed += 1;
            else failures.push(status.state === 'failed' ? (status.error ?? 'failed') : status.state);
            finishedRead += status.progress.read;
            running[i] = await submit();
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
    },
    /** Hooks read so far by every replay this keeper started. */
    async read(): Promise<number> {
      return finishedRead + (await readOf(running));
    },
    /** Cancels the running replays and waits until none runs. */
    async stop(): Promise<{ completed: number; failures: string[] }> {
      stopped = true;
      await loop;
      for (const id of running) await queue.cancel(id);
      const until = Date.now() + 30_000;
      while ((await queue.unfinished()) > 0) {
        if (Date.now() > until) throw new Error('the replays did not stop within 30 s of their cancel');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { completed, failures };
    },
  };
}

async function window(ctx: PhaseContext, count: number, keeper: ReturnType<typeof replayKeeper> | undefined): Promise<Window> {
  const stack = await ctx.product();
  if (keeper !== undefined) await keeper.start();
  const readBefore = keeper === undefined ? 0 : await keeper.read();
  const { result: run, cpu } = await ctx.measureCpu(stack.processes(), () => ctx.loadgen.run('sdk', { kind: 'closed', concurrency: 1, count }));
  const replayed = keeper === undefined ? 0 : (await keeper.read()) - readBefore;
  if (keeper !== undefined) {
    const { completed, failures } = await keeper.stop();
    if (failures.length > 0) ctx.say(`replays that failed during the window: ${failures.join('; ')}`);
    if (completed > 0) ctx.say(`${completed} replay(s) finished during the window and were replaced`);
  }
  const perOp = cpuPerOperation(cpu, run.completed);
  return { run, cpuMs: perOp.totalMs, perProcess: perOp.processes, replayed };
}

export const replayContentionPhase: Phase = {
  key: 'replay',
  name: 'replay contention',
  resultPath: 'product.replayContention',
  describe: (plan) => `${RECORDED_HOOKS} hooks recorded, then ${ROUNDS * 2} alternating windows (no replay / one replay per worker) of ${plan.lowLoadDecisions} hooks one at a time`,
  async run(ctx) {
    const config = ctx.rules.config;
    if (config === undefined) return 'skipped: no hooks configuration is published, so there is nothing to replay';
    const stack = await ctx.product();
    const redis: RedisClient = await connectRedis({ url: ctx.redis.url, name: 'bench-replay', logger: silent });
    const keys = createKeys({ prefix: stack.keyPrefix });
    const queue = createConfigReplayQueue({ redis, keys, logger: silent });
    try {
      const log = createReplayLog({ redis, keys });
      const warmStart = Date.now();
      await ctx.loadgen.run('sdk', { kind: 'closed', concurrency: 8, count: Math.max(ctx.plan.warmupDecisions, 200) });
      // The workers append after the decision has left: give the last ones a moment.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const samples: ReplayRecord[] = [];
      for await (const item of log.read({ sinceMs: warmStart, untilMs: Date.now() + 1 })) if (item.kind === 'record' && item.record.context !== undefined) samples.push(item.record);
      if (samples.length === 0) throw new Error('the warm-up recorded no hook in the replay log (is AHP_REPLAY_LOG_MAX_ENTRIES 0?)');

      const recordStart = Date.now();
      const appends = syntheticAppends(samples, RECORDED_HOOKS, recordStart);
      const queued = appends.values();
      await Promise.all(
        Array.from({ length: RECORD_IN_FLIGHT }, async () => {
          for (let item = queued.next(); item.done !== true; item = queued.next()) await log.append(item.value);
        }),
      );
      const recordMs = Date.now() - recordStart;
      ctx.say(`recorded ${RECORDED_HOOKS} hooks (copies of ${samples.length} recorded by the warm-up) in ${(recordMs / 1000).toFixed(1)} s through ReplayLog.append`);

      const job = {
        source: `${config.source}\n# candidate for the bench's replay phase\n`,
        since_ms: recordStart,
        until_ms: recordStart + RECORDED_HOOKS,
        limit: RECORDED_HOOKS,
        requested_by: 'ahp-bench',
      };
      const count = ctx.plan.lowLoadDecisions;
      const without: Window[] = [];
      const withReplay: Window[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        without.push(await window(ctx, count, undefined));
        withReplay.push(await window(ctx, count, replayKeeper(queue, job, stack.workerCount)));
      }
      const off = side(without);
      const on = side(withReplay);
      const ratios = {
        p50: ratio(off.decision.latency.p50, on.decision.latency.p50),
        p99: ratio(off.decision.latency.p99, on.decision.latency.p99),
        cpuPerDecision: ratio(off.cpuPerDecisionMs, on.cpuPerDecisionMs),
      };
      ctx.results.product.replayContention = { recordedHooks: RECORDED_HOOKS, replaysAtOnce: stack.workerCount, decisionsPerWindow: count, without: off, with: on, ratios };
      ctx.say(`without: p50 ${ms(off.decision.latency.p50)}, p99 ${ms(off.decision.latency.p99)}, CPU ${off.cpuPerDecisionMs} ms/decision (${off.cpuPerDecisionByProcess.map((p) => `${p.name} ${p.ms}`).join(', ')}); windows ${off.windows.map((w) => w.p50).join(' / ')} ms p50`);
      ctx.say(`with:    p50 ${ms(on.decision.latency.p50)}, p99 ${ms(on.decision.latency.p99)}, CPU ${on.cpuPerDecisionMs} ms/decision (${on.cpuPerDecisionByProcess.map((p) => `${p.name} ${p.ms}`).join(', ')}); windows ${on.windows.map((w) => w.p50).join(' / ')} ms p50; replays read ${on.replayedPerSecond} hooks/s`);
      return `decision p50 ${ms(off.decision.latency.p50)} → ${ms(on.decision.latency.p50)} (×${ratios.p50}), p99 ${ms(off.decision.latency.p99)} → ${ms(on.decision.latency.p99)} (×${ratios.p99}); CPU per decision ${off.cpuPerDecisionMs} → ${on.cpuPerDecisionMs} ms (×${ratios.cpuPerDecision}, the replays' work included); ${stack.workerCount} replays of ${RECORDED_HOOKS} hooks at ${on.replayedPerSecond} hooks/s`;
    } finally {
      await queue.close();
      await redis.close();
    }
  },
};
