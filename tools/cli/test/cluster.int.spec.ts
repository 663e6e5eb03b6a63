/**
 * The built `ahp` CLI (dist/cli.js) as a process against a private 3-master Redis Cluster
 * (tools/embedded-redis): REDIS_CLUSTER_NODES or --redis-cluster-nodes make it a cluster client,
 * and a bad node list is a usage error (exit 2) before anything connects.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisCluster, type RedisClusterHandle } from '@ahp/embedded-redis';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

const HOOKS = `version: 1
hooks:
  post-tool-use:
    oracles:
      - name: notes
        use: rules
        rules:
          - id: note
            condition: "true"
            intensity: aid
            message: "hi"
`;

let cluster: RedisClusterHandle;
let dir: string;
const prefix = uniqueKeyPrefix('cli-cluster').replace(/:$/, '');

function ahp(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', AHP_KEY_PREFIX: prefix, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  dir = await mkdtemp(join(tmpdir(), 'ahp-cli-cluster-'));
  await writeFile(join(dir, 'hooks.yaml'), HOOKS);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('ahp on a Redis Cluster', () => {
  it('publishes and reads the configuration through the cluster client (REDIS_CLUSTER_NODES)', async () => {
    const published = await ahp(['config', 'publish', 'hooks.yaml'], { REDIS_CLUSTER_NODES: cluster.nodeList });
    expect(published.stderr).toBe('config publish: validating hooks.yaml\nconfig publish: connecting to Redis\nconfig publish: publishing hooks.yaml\n');
    expect(published.code).toBe(0);
    const shown = await ahp(['config', 'show', '--redis-cluster-nodes', cluster.nodeList], {});
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('id: note');
  });

  it('refuses a malformed node list as a usage error, naming the option', async () => {
    const run = await ahp(['config', 'show'], { REDIS_CLUSTER_NODES: 'not a node list' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--redis-cluster-nodes / REDIS_CLUSTER_NODES');
  });
});
