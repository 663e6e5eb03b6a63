/**
 * CPU profiles of the gateway and the workers under two loads: flat out (where the cost per
 * decision is lowest, everything batched) and an open loop at half the sustained rate (where the
 * latency targets are judged, each decision paying its own wake-ups and system calls). One stack
 * is started with `--cpu-prof` (each process writes its profile when it exits); each window is
 * summarised into self time per function and per package from the samples taken inside it only
 * (start-up and shutdown left out). The `.cpuprofile` files stay in results/profiles/ for Chrome
 * DevTools or speedscope.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { summarizeCpuProfile, type CpuProfile, type ProfileWindow } from '../profile/cpuprofile.js';
import { count, loadName } from '../report/format.js';
import { throughput, type Phase } from '../orchestrator/context.js';
import { ProductStack } from '../orchestrator/product-stack.js';
import type { ProcessProfile } from '../results.js';

/** Where the profiles go: beside the results file. */
export function profilesDir(resultsDir: string): string {
  return join(resultsDir, 'profiles');
}

/** One load window of the profiled stack. */
interface LoadWindow {
  load: ProcessProfile['load'];
  /** Decisions per second completed in it. */
  rate: number;
  window: ProfileWindow;
}

/**
 * The open-loop rate to profile: the half-load rate of the throughput phase when it ran (the rate
 * its latency target is judged at), otherwise a quarter of the flat-out rate just measured — about
 * where the sustained rate has been found on two cores.
 */
export function openLoopRate(halfLoadRate: number | undefined, flatOutRate: number): number {
  if (halfLoadRate !== undefined && halfLoadRate > 0) return halfLoadRate;
  return Math.max(10, Math.round(flatOutRate / 4 / 10) * 10);
}

/** The pid in a profile's file name (`CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`). */
export function pidOfProfile(file: string): number | undefined {
  const match = /^CPU\.\d+\.\d+\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file);
  return match ? Number(match[1]) : undefined;
}

export function cpuProfilePhase(resultsDir: string): Phase {
  return {
    key: 'profile',
    name: 'CPU profile',
    resultPath: 'profiles',
    describe: (plan) =>
      `gateway and workers under --cpu-prof, ${plan.profileMs / 1000} s flat out (${plan.saturationInFlight} in flight), then ${plan.profileMs / 1000} s in an open loop at half the sustained rate`,
    async run(ctx) {
      const { plan, loadgen } = ctx;
      await ctx.releaseProduct();
      const dir = profilesDir(resultsDir);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      const stack = await ProductStack.start(ctx, { name: 'profile', workers: ctx.results.setup.workers, nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir] });
      const names = new Map(stack.processes().map((process) => [process.pid, process.name]));
      const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
      const windows: LoadWindow[] = [];
      try {
        await loadgen.open({ name: 'sdk', urls: stack.urls(), logins: ctx.logins.slice(0, plan.agents) });
        await loadgen.run('sdk', { kind: 'closed', concurrency: 8, count: plan.warmupDecisions });
        let startUs = monotonicUs();
        const flatOut = await loadgen.run('sdk', { kind: 'closed', concurrency: plan.saturationInFlight, durationMs: plan.profileMs });
        windows.push({ load: { kind: 'closed', inFlight: plan.saturationInFlight }, rate: throughput(flatOut), window: { startUs, endUs: monotonicUs() } });
        await loadgen.idle('sdk', 30_000);
        const rate = openLoopRate(ctx.results.product.halfLoad?.rate, throughput(flatOut));
        startUs = monotonicUs();
        const open = await loadgen.run('sdk', { kind: 'open', rate, durationMs: plan.profileMs, drainMs: 5000 });
        windows.push({ load: { kind: 'open', rate }, rate: throughput(open), window: { startUs, endUs: monotonicUs() } });
      } finally {
        // Each process writes its profile as it exits.
        await loadgen.close('sdk').catch(() => undefined);
        await stack.stop();
      }
      const profiles: ProcessProfile[] = [];
      for (const file of (await readdir(dir)).sort()) {
        const pid = pidOfProfile(file);
        const name = pid === undefined ? undefined : names.get(pid);
        if (name === undefined) continue;
        const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
        for (const { load, rate, window } of windows) {
          profiles.push({ process: name, file: join(dir, file), load, decisionsPerSecond: rate, summary: summarizeCpuProfile(profile, 12, window) });
        }
      }
      profiles.sort((a, b) => a.process.localeCompare(b.process) || (a.load.kind === b.load.kind ? 0 : a.load.kind === 'closed' ? -1 : 1));
      ctx.results.profiles = profiles;
      for (const { process, load, summary } of profiles) {
        ctx.say(`${process}, ${loadName(load)}: ${summary.byPackage.slice(0, 5).map((entry) => `${entry.name} ${entry.percent}%`).join(', ')}`);
      }
      return windows.map(({ load, rate }) => `${loadName(load)}: ${count(rate)} decisions/s`).join('; ') + ` (${plan.profileMs / 1000} s each)`;
    },
  };
}
