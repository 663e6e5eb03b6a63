/**
 * The built gateway and oracle worker (apps/…/dist/main.js) as processes, given a Redis topology
 * that cannot work: the run's standalone Redis listed in REDIS_CLUSTER_NODES, a Redis Cluster
 * node given as REDIS_URL, and a cluster with slots no master serves (two one-master clusters
 * started here, the second with slots 0-99 taken away). Each refuses to start — the worker
 * with its configuration exit code (78), the gateway with 1 — and says what is wrong with which
 * node, instead of retrying or failing later on a MOVED or a cross-slot reply.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisCluster, withRedisConnection, type RedisClusterHandle } from '@ahp/embedded-redis';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { mintCredentials, writeTokensFile } from '@ahp/stack';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const ENTRIES = {
  gateway: fileURLToPath(new URL('../../apps/gateway/dist/main.js', import.meta.url)),
  worker: fileURLToPath(new URL('../../apps/oracle-worker/dist/main.js', import.meta.url)),
};

let dir: string;
let tokensFile: string;
let cluster: RedisClusterHandle;
let uncovered: RedisClusterHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-e2e-topology-'));
  tokensFile = join(dir, 'agent-tokens.json');
  await writeTokensFile(tokensFile, mintCredentials([{ id: 'a', name: 'A', team: 't', role: 'lead' }]));
  [cluster, uncovered] = await Promise.all([startRedisCluster({ masters: 1 }), startRedisCluster({ masters: 1 })]);
  const [node] = uncovered.masters;
  await withRedisConnection({ host: node?.host ?? '', port: node?.port ?? 0 }, (client) => client.sendCommand(['CLUSTER', 'DELSLOTSRANGE', '0', '99']));
});

afterAll(async () => {
  await Promise.all([cluster?.stop(), uncovered?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs one app with only `redis` for its Redis (nothing inherited), until it exits by itself. */
function run(app: keyof typeof ENTRIES, redis: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const env = {
    PATH: process.env['PATH'] ?? '',
    AHP_KEY_PREFIX: uniqueKeyPrefix('topology').replace(/:$/, ''),
    AHP_AGENT_TOKENS_FILE: tokensFile,
    PORT: '0',
    AHP_WORKER_METRICS_PORT: '0',
    ...redis,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRIES[app]], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

const EXIT = { gateway: 1, worker: 78 } as const;

describe.each(['gateway', 'worker'] as const)('the %s refuses a Redis topology that cannot work', (app) => {
  it('exits naming a standalone Redis listed in REDIS_CLUSTER_NODES', async () => {
    const standalone = new URL(inject('redisUrl')).host;
    const { code, stderr } = await run(app, { REDIS_CLUSTER_NODES: standalone });
    expect(code, stderr).toBe(EXIT[app]);
    expect(stderr).toContain(`REDIS_CLUSTER_NODES lists ${standalone}, which is a standalone Redis (cluster support disabled)`);
  });

  it('exits naming a cluster node given as REDIS_URL', async () => {
    const [node] = cluster.masters;
    const { code, stderr } = await run(app, { REDIS_URL: `redis://${node?.host ?? ''}:${String(node?.port)}` });
    expect(code, stderr).toBe(EXIT[app]);
    expect(stderr).toContain('REDIS_URL points at a Redis Cluster node (cluster_enabled:1)');
  });

  it('exits naming a cluster whose slots are not all served', async () => {
    const { code, stderr } = await run(app, { REDIS_CLUSTER_NODES: uncovered.nodeList });
    expect(code, stderr).toBe(EXIT[app]);
    expect(stderr).toContain(`the Redis Cluster of ${uncovered.nodeList} has uncovered slots: 16284 of 16384 assigned`);
  });
});
