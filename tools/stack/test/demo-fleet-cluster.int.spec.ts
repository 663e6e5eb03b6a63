/**
 * `npm start -- --redis-cluster 3` as a process (the built dist/cli.js, as tools/scripts/main.sh
 * runs it after building): it starts a local 3-master Redis Cluster, publishes the repository's
 * .ahp/hooks.yaml through the cluster client, starts a gateway and an oracle worker on the
 * cluster, and the demo fleet's agents get their decisions — blocked, allowed, a prompt, a plan
 * and a tool approval waiting for operators — with no CROSSSLOT refusal anywhere (not in any
 * process's output, not in any master's own error counts); SIGTERM stops it all and removes the
 * cluster. The lead's shutdown of the helper (after 15 s) is left out to keep the test short: the
 * team protocols run on a cluster in e2e/system's cluster variant.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withRedisConnection } from '@ahp/embedded-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

let dir: string;
let child: ChildProcess;
let exited: Promise<number | null>;
const output: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-demo-cluster-'));
  // Only PATH and HOME: a REDIS_URL or REDIS_CLUSTER_NODES of this test run (AHP_TEST_REDIS=cluster
  // exports one) would make `--redis-cluster` refuse the start as ambiguous.
  const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? dir };
  child = spawn(process.execPath, [CLI, '--redis-cluster', '3', '--no-console', '--no-restart', '--workers', '1', '--port', '0', '--data-dir', dir], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  let partial = '';
  const collect = (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    output.push(...lines);
  };
  child.stdout?.setEncoding('utf8').on('data', collect);
  child.stderr?.setEncoding('utf8').on('data', collect);
}, 10_000);

afterAll(async () => {
  // Normally stopped by the test; a failed test leaves it running, and SIGTERM still removes the cluster.
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
  if (dir) await rm(dir, { recursive: true, force: true });
}, 40_000);

/** The lines the CLI printed so far, for a failure message. */
const shown = () => output.join('\n');

/** Resolves once `test` holds; fails at once, with the output, when the CLI exited first (a process that did not start, say). */
async function until(what: string, test: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start exited (${child.exitCode ?? child.signalCode}) before ${what}:\n${shown()}`);
    if (Date.now() > deadline) throw new Error(`no sign of ${what} within ${timeoutMs / 1000} s:\n${shown()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('npm start -- --redis-cluster 3', () => {
  it('runs the demo fleet on a local 3-master cluster without a cross-slot refusal, and removes the cluster on SIGTERM', async () => {
    // The coder's first round ends with its post-issue-submit hook; by then every kind of decision has come back.
    await until('the coder’s first round', () => output.some((line) => line.startsWith('[demo] demo-coder: after submit #1 →')), 90_000);
    await until('the ops agent’s tool approval', () => output.some((line) => line.startsWith('[demo] demo-ops: kubectl rollout restart is waiting for an operator')), 20_000);
    await until('the planner’s plan', () => output.some((line) => line.startsWith('[demo] demo-planner: plan #1 is waiting for an operator')), 20_000);

    expect(output).toContain('[ahp] starting a local Redis Cluster of 3 masters (throwaway: its data is removed on exit)');
    expect(output.some((line) => /^\[ahp\] hooks configuration: version \S+ \(.*hooks\.yaml\), newly published$/.test(line))).toBe(true);
    const coder = output.filter((line) => line.startsWith('[demo] demo-coder: '));
    expect(coder.find((line) => line.includes('bash rm -rf / →'))).toMatch(/→ blocked: /);
    expect(coder.find((line) => line.includes('bash npm test →'))).toMatch(/→ allowed/);
    expect(coder.find((line) => line.includes('submit #1 with 25 files →'))).toMatch(/→ (allowed with prompt|blocked)/);
    // A demo script that fails says `stopped: <error>`.
    expect(output.filter((line) => / stopped: /.test(line))).toEqual([]);

    const masters = output.flatMap((line) => /^\[ahp\] {3}master (\S+):(\d+) {2}log /.exec(line)?.slice(1, 3) ?? []);
    expect(masters).toHaveLength(6);
    for (let index = 0; index < masters.length; index += 2) {
      // Redis counts every error reply it sends by its first word: a cross-slot script or command would show as errorstat_CROSSSLOT.
      const errors = await withRedisConnection({ host: masters[index] ?? '', port: Number(masters[index + 1]) }, (client) => client.info('errorstats'));
      expect(errors).toMatch(/^# Errorstats/);
      expect(errors).not.toMatch(/CROSSSLOT/);
    }
    const logs = join(dir, 'logs');
    for (const file of await readdir(logs)) expect(await readFile(join(logs, file), 'utf8'), file).not.toMatch(/CROSSSLOT/);
    expect(shown()).not.toMatch(/CROSSSLOT/);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('[ahp] stopped. The local Redis Cluster and its data are removed.');
  }, 150_000);
});
