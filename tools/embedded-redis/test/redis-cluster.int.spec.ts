/**
 * startRedisCluster against real `redis-server --cluster-enabled yes` processes started by the
 * test itself on free ports: slots covered, a key routed to its slot's owner, a replica promoted
 * when its master is SIGKILLed, and nothing left behind after stop().
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CLUSTER_SLOTS, slotRanges, startRedisCluster, type RedisClusterHandle } from '../src/redis-cluster.js';
import { isProcessAlive } from '../src/redis-process.js';
import { withRedisConnection } from '../src/redis-connection.js';

const clusters: RedisClusterHandle[] = [];
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((cluster) => cluster.stop()));
});

async function run(port: number, ...args: string[]): Promise<unknown> {
  return withRedisConnection({ port }, (client) => client.sendCommand(args));
}

describe('slotRanges', () => {
  it('covers every slot exactly once, in contiguous even ranges', () => {
    for (const masters of [1, 2, 3, 5, 7]) {
      const ranges = slotRanges(masters);
      expect(ranges[0]![0]).toBe(0);
      expect(ranges.at(-1)![1]).toBe(CLUSTER_SLOTS - 1);
      for (let index = 1; index < ranges.length; index++) expect(ranges[index]![0]).toBe(ranges[index - 1]![1] + 1);
      const sizes = ranges.map(([from, to]) => to - from + 1);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });
});

describe('startRedisCluster', () => {
  it('creates a 3-master cluster with every slot assigned, routes keys by slot, and removes everything on stop', async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    clusters.push(cluster);
    expect(cluster.nodes).toHaveLength(3);
    expect(cluster.nodeList.split(',')).toHaveLength(3);
    for (const node of cluster.nodes) {
      const info = String(await run(node.port, 'CLUSTER', 'INFO'));
      expect(info).toMatch(/cluster_state:ok/);
      expect(info).toMatch(/cluster_slots_assigned:16384/);
      expect(info).toMatch(/cluster_known_nodes:3/);
    }
    // A key's slot owner accepts it; another master redirects with MOVED.
    const slot = Number(await run(cluster.nodes[0]!.port, 'CLUSTER', 'KEYSLOT', 'ahp:hook:{h-1}'));
    const ranges = slotRanges(3);
    const owner = cluster.masters[ranges.findIndex(([from, to]) => slot >= from && slot <= to)]!;
    const other = cluster.masters.find((node) => node !== owner)!;
    expect(await run(owner.port, 'SET', 'ahp:hook:{h-1}', 'x')).toBe('OK');
    await expect(run(other.port, 'SET', 'ahp:hook:{h-1}', 'x')).rejects.toThrow(/MOVED/);

    const pids = cluster.nodes.map((node) => node.pid);
    const dirs = cluster.nodes.map((node) => node.dataDir);
    await cluster.stop();
    for (const pid of pids) expect(isProcessAlive(pid)).toBe(false);
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
  });

  it('promotes a replica when its master is killed with SIGKILL, and the cluster is ok again', async () => {
    const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1000 });
    clusters.push(cluster);
    expect(cluster.nodes).toHaveLength(6);
    const roles = await cluster.roles();
    expect([...roles.values()].filter((role) => role === 'master')).toHaveLength(3);

    const victim = cluster.masters[0]!;
    // The replica created for master 0 is the first node after the masters.
    const replica = cluster.nodes[3]!;
    expect(String(await run(replica.port, 'INFO', 'replication'))).toMatch(new RegExp(`master_port:${victim.port}`));
    await cluster.kill(victim.port);
    expect(victim.exited).toBe(true);
    await cluster.waitUntilOk(30_000);
    await expect.poll(async () => (await cluster.roles()).get(replica.port), { timeout: 30_000, interval: 200 }).toBe('master');
  });

  it('refuses a nonsensical size before starting anything', async () => {
    await expect(startRedisCluster({ masters: 0 })).rejects.toThrow(RangeError);
    await expect(startRedisCluster({ masters: 3, replicasPerMaster: -1 })).rejects.toThrow(RangeError);
  });
});
