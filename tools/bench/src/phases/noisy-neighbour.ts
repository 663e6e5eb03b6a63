/**
 * Noisy neighbour (issue 17): well-behaved SDK agents send hooks at a steady rate to one gateway,
 * first alone (the quiet baseline), then beside an abusive client, each abuse on a fresh stack — a flood of valid
 * hooks, invalid deeply nested frames, gzip bombs to the Claude Code HTTP route without a token,
 * a flood of `inbox_ack` frames. For each window it keeps the well-behaved agents' latency, the
 * gateway's peak resident memory, and how the gateway answered the abuser (error codes, close
 * codes, HTTP statuses).
 *
 * The gateway runs with its production rate limits here (every other product phase lifts them),
 * since what they protect is what is measured.
 */
import { fileURLToPath } from 'node:url';
import { agentEndpoint, spawnService } from '@ahp/stack';
import { measured, type Phase, type PhaseContext } from '../orchestrator/context.js';
import { ProductStack } from '../orchestrator/product-stack.js';
import { count, ms } from '../report/format.js';
import type { AgentLogin } from '../loadgen/protocol.js';
import type { NoisyRun, NoisyWindow } from '../results.js';
import { ABUSE_MODES, parseAbuseReport, type AbuseMode, type AbuseReport, type AbuseSpec } from '../shared/abuse.js';
import { startRssSampler } from '../system/rss-sampler.js';
import { warmUp } from './common.js';

const ABUSER_ENTRY = fileURLToPath(new URL('../children/abuser.js', import.meta.url));
/** Time the abuse runs before the measured window opens, so the window sees it under way. */
const ABUSE_LEAD_MS = 500;
const MIB = 1024 * 1024;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const noisyNeighbour: Phase = {
  key: 'noisy',
  name: 'noisy neighbour',
  resultPath: 'product.noisyNeighbour',
  describe: (plan) =>
    `for each of ${ABUSE_MODES.length} abusive clients (${ABUSE_MODES.join(', ')}), on a fresh stack: ${count(plan.noisyAgents)} agents at ${count(plan.noisyRate)} decisions/s for ${(plan.noisyWindowMs / 1000).toFixed(1)} s alone, then as long beside it`,
  async run(ctx) {
    const { plan } = ctx;
    await ctx.releaseProduct();
    const logins = ctx.logins.slice(0, plan.noisyAgents);
    const abuserLogins = ctx.logins.slice(plan.noisyAgents, plan.noisyAgents + ABUSE_MODES.length);
    if (logins.length < plan.noisyAgents || abuserLogins.length < ABUSE_MODES.length) throw new Error('not enough agents minted for the noisy-neighbour phase');
    const runs: NoisyRun[] = [];
    for (const [index, abuse] of ABUSE_MODES.entries()) {
      const token = abuserLogins[index]?.token;
      if (token === undefined) throw new Error('no abuser agent minted');
      const run = await runOne(ctx, abuse, logins, token);
      runs.push(run);
      ctx.say(`${abuse}: quiet ${describeWindow(run.quiet)}`);
      ctx.say(
        `${' '.repeat(abuse.length)}  abused ${describeWindow(run.abused)} (p99 ${ratio(run.abused.latency.p99, run.quiet.latency.p99)} of quiet, RSS +${((run.abused.gatewayPeakRssBytes - run.quiet.gatewayPeakRssBytes) / MIB).toFixed(0)} MB)`,
      );
      if (run.abused.abuser !== undefined) ctx.say(`${' '.repeat(abuse.length)}  abuser: ${describeAbuser(run.abused.abuser)}`);
    }
    ctx.results.product.noisyNeighbour = { agents: plan.noisyAgents, rate: plan.noisyRate, windowMs: plan.noisyWindowMs, runs };
    const worst = runs.reduce((a, b) => (b.abused.latency.p99 / b.quiet.latency.p99 > a.abused.latency.p99 / a.quiet.latency.p99 ? b : a));
    return `worst: p99 ${ratio(worst.abused.latency.p99, worst.quiet.latency.p99)} of quiet beside ${worst.abuse}`;
  },
};

/**
 * One abuse on a stack of its own (a gateway keeps the memory an earlier abuse made it take, so
 * a shared stack would charge one abuse with another's): the agents alone, then beside it.
 */
async function runOne(ctx: PhaseContext, abuse: AbuseMode, logins: readonly AgentLogin[], abuserToken: string): Promise<NoisyRun> {
  const { plan } = ctx;
  const stack = await ProductStack.start(ctx, { name: `noisy-${abuse}`, workers: ctx.results.setup.workers, productionLimits: true });
  try {
    const gateway = stack.stack.gateways[0];
    if (gateway === undefined) throw new Error('the noisy-neighbour stack has no gateway');
    const opened = await ctx.loadgen.open({ name: 'sdk', urls: stack.urls(), logins: [...logins] });
    if (opened.failed > 0) throw new Error(`${opened.failed} agents failed to connect: ${opened.failures.join('; ')}`);
    await warmUp(ctx, 'sdk', Math.min(200, plan.noisyRate));
    const window = async (abuser: RunningAbuser | undefined): Promise<NoisyWindow> => {
      const rss = startRssSampler(gateway.pid);
      try {
        const run = await ctx.loadgen.run('sdk', { kind: 'open', rate: plan.noisyRate, durationMs: plan.noisyWindowMs, drainMs: 5000 });
        const peak = rss.stop();
        const report = await abuser?.stop();
        return { abuse: abuser === undefined ? null : abuse, ...measured(run), gatewayPeakRssBytes: peak, ...(report === undefined ? {} : { abuser: report }) };
      } finally {
        rss.stop();
        await abuser?.stop();
      }
    };
    const quiet = await window(undefined);
    const abuser = await startAbuser(ctx, abuse, {
      agentUrl: agentEndpoint(gateway),
      httpUrl: `http://127.0.0.1:${String(gateway.ready['port'])}`,
      token: abuserToken,
    });
    return { abuse, quiet, abused: await window(abuser) };
  } finally {
    await ctx.loadgen.close('sdk').catch(() => undefined);
    await stack.stop();
  }
}

/** A running abuser; `stop` ends it once and resolves with its report. */
interface RunningAbuser {
  stop(): Promise<AbuseReport | undefined>;
}

async function startAbuser(ctx: PhaseContext, mode: AbuseMode, target: Omit<AbuseSpec, 'mode'>): Promise<RunningAbuser> {
  let reported: (report: AbuseReport) => void = () => undefined;
  const report = new Promise<AbuseReport>((resolve) => {
    reported = resolve;
  });
  const spec: AbuseSpec = { mode, ...target };
  const service = await spawnService({
    name: `abuser-${mode}`,
    entry: ABUSER_ENTRY,
    cwd: ctx.root,
    args: [JSON.stringify(spec)],
    onLine: (line) => {
      const parsed = parseAbuseReport(line);
      if (parsed !== undefined) reported(parsed);
    },
  });
  await sleep(ABUSE_LEAD_MS);
  let stopping: Promise<AbuseReport | undefined> | undefined;
  return {
    stop() {
      // The process can exit before its last output line has been read: give the line a moment.
      stopping ??= service.stop().then(() => Promise.race([report, sleep(2000).then(() => undefined)]));
      return stopping;
    },
  };
}

const ratio = (value: number, base: number) => (base > 0 ? `${(value / base).toFixed(2)}×` : 'n/a');

function describeWindow(row: NoisyWindow): string {
  const errors = row.errors > 0 ? `, ${count(row.errors)} errors (${Object.entries(row.errorCodes).map(([code, n]) => `${code}×${n}`).join(' ')})` : '';
  return `p50 ${ms(row.latency.p50)}, p99 ${ms(row.latency.p99)}${errors}, gateway peak RSS ${(row.gatewayPeakRssBytes / MIB).toFixed(0)} MB`;
}

function describeAbuser(report: AbuseReport): string {
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([key, n]) => `${key}×${count(n)}`)
      .join(' ') || 'none';
  return `sent ${count(report.sent)}, connects ${count(report.connects)}; replies ${list(report.replies)}; closes ${list(report.closes)}; HTTP ${list(report.httpStatuses)}`;
}
