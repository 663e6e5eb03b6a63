/**
 * CPU profiles of the gateway and the workers while the product runs flat out: a stack started
 * with `--cpu-prof` (each process writes its profile when it exits), summarised into self time
 * per function and per package over the load window only (start-up and shutdown left out). The
 * `.cpuprofile` files stay in results/profiles/ for Chrome DevTools or speedscope.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { summarizeCpuProfile, type CpuProfile, type ProfileWindow } from '../profile/cpuprofile.js';
import { count } from '../report/format.js';
import { throughput, type Phase } from '../orchestrator/context.js';
import { ProductStack } from '../orchestrator/product-stack.js';
import type { ProcessProfile } from '../results.js';

/** Where the profiles go: beside the results file. */
export function profilesDir(resultsDir: string): string {
  return join(resultsDir, 'profiles');
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
    describe: (plan) => `gateway and workers under --cpu-prof, ${plan.profileMs / 1000} s flat out (${plan.saturationInFlight} in flight)`,
    async run(ctx) {
      const { plan, loadgen } = ctx;
      await ctx.releaseProduct();
      const dir = profilesDir(resultsDir);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      const stack = await ProductStack.start(ctx, { name: 'profile', workers: ctx.results.setup.workers, nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir] });
      const names = new Map(stack.processes().map((process) => [process.pid, process.name]));
      const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
      const { rate, window } = await (async () => {
        try {
          await loadgen.open({ name: 'sdk', urls: stack.urls(), logins: ctx.logins.slice(0, plan.agents) });
          await loadgen.run('sdk', { kind: 'closed', concurrency: 8, count: plan.warmupDecisions });
          const startUs = monotonicUs();
          const run = await loadgen.run('sdk', { kind: 'closed', concurrency: plan.saturationInFlight, durationMs: plan.profileMs });
          const loadWindow: ProfileWindow = { startUs, endUs: monotonicUs() };
          return { rate: throughput(run), window: loadWindow };
        } finally {
          // Each process writes its profile as it exits.
          await loadgen.close('sdk').catch(() => undefined);
          await stack.stop();
        }
      })();
      const profiles: ProcessProfile[] = [];
      for (const file of (await readdir(dir)).sort()) {
        const pid = pidOfProfile(file);
        const name = pid === undefined ? undefined : names.get(pid);
        if (name === undefined) continue;
        const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
        profiles.push({ process: name, file: join(dir, file), summary: summarizeCpuProfile(profile, 12, window) });
      }
      profiles.sort((a, b) => a.process.localeCompare(b.process));
      ctx.results.profiles = profiles;
      for (const { process, summary } of profiles) {
        ctx.say(`${process}: ${summary.byPackage.slice(0, 5).map((entry) => `${entry.name} ${entry.percent}%`).join(', ')}`);
      }
      return `${profiles.length} profiles of ${plan.profileMs / 1000} s at ${count(rate)} decisions/s`;
    },
  };
}
