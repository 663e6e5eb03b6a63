/**
 * connectRedis against the run's Redis: the connection name, and surviving a killed connection.
 * Against real clusters it starts itself (tools/embedded-redis startRedisCluster): a cluster
 * client from REDIS_CLUSTER_NODES, and the configurations refused at start.
 */
import { startRedisCluster, type RedisClusterHandle } from '@ahp/embedded-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, isClusterClient, parseClusterNodes, RedisTopologyError, type RedisSingleClient } from '../src/index.js';
import { eventually, recordingLogger, redisUrl } from './support.js';

let admin: RedisSingleClient;

beforeAll(async () => {
  admin = await connectRedis({ url: redisUrl(), name: 'store-test:admin', logger: recordingLogger() });
});
afterAll(async () => {
  await admin.close();
});

describe('connectRedis', () => {
  it('names the connection, logs a killed connection instead of crashing, and reconnects', async () => {
    const logger = recordingLogger();
    const client = await connectRedis({ url: redisUrl(), name: 'store-test:named', logger });
    try {
      await expect(client.clientGetName()).resolves.toBe('store-test:named');
      const id = await client.clientId();
      await admin.sendCommand(['CLIENT', 'KILL', 'ID', String(id)]);

      await eventually(() => (logger.lines.some((line) => line.message === 'redis connection re-established') ? true : undefined), 'a reconnect');
      await expect(client.ping()).resolves.toBe('PONG');
      await expect(client.clientGetName()).resolves.toBe('store-test:named');
      expect(logger.lines.some((line) => line.level === 'warn')).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('refuses a connection name CLIENT SETNAME would reject', async () => {
    await expect(connectRedis({ url: redisUrl(), name: 'has space', logger: recordingLogger() })).rejects.toThrow(TypeError);
  });
});

describe('parseClusterNodes', () => {
  it('reads host:port lists, IPv6 in brackets, and names a bad entry', () => {
    expect(parseClusterNodes(' 10.0.0.1:7000, redis-2:7001 ,[::1]:7002,')).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(() => parseClusterNodes('10.0.0.1')).toThrow(/"10.0.0.1" is not host:port/);
    expect(() => parseClusterNodes('a:1,a:1')).toThrow(/listed twice/);
    expect(() => parseClusterNodes('a:99999')).toThrow(RedisTopologyError);
    expect(() => parseClusterNodes(' , ')).toThrow(/REDIS_CLUSTER_NODES: names no node/);
  });
});

describe('connectRedis with REDIS_CLUSTER_NODES', () => {
  let cluster: RedisClusterHandle;
  let other: RedisClusterHandle;
  beforeAll(async () => {
    [cluster, other] = await Promise.all([startRedisCluster({ masters: 3 }), startRedisCluster({ masters: 1 })]);
  });
  afterAll(async () => {
    await Promise.all([cluster?.stop(), other?.stop()]);
  });

  it('opens a cluster client that routes keys of every slot', async () => {
    const client = await connectRedis({ clusterNodes: cluster.nodeList, name: 'store-test:cluster', logger: recordingLogger() });
    try {
      expect(isClusterClient(client)).toBe(true);
      for (let index = 0; index < 30; index++) await client.set(`ahp:test:{k${index}}`, String(index));
      for (let index = 0; index < 30; index++) expect(await client.get(`ahp:test:{k${index}}`)).toBe(String(index));
    } finally {
      await client.close();
    }
  });

  it('refuses a standalone Redis given as a cluster node, naming it', async () => {
    const standalone = new URL(redisUrl()).host;
    await expect(connectRedis({ clusterNodes: standalone, name: 'store-test:bad', logger: recordingLogger() })).rejects.toThrow(
      new RegExp(`REDIS_CLUSTER_NODES lists ${standalone}, which is a standalone Redis`),
    );
  });

  it('refuses a cluster node given as REDIS_URL', async () => {
    const node = cluster.nodes[0];
    await expect(connectRedis({ url: `redis://${node?.host}:${node?.port}`, name: 'store-test:bad', logger: recordingLogger() })).rejects.toThrow(
      /REDIS_URL points at a Redis Cluster node/,
    );
  });

  it('takes REDIS_URL beside the node list for its credentials only when it names one of the nodes', async () => {
    const node = cluster.nodes[1];
    const client = await connectRedis({ url: `redis://${node?.host}:${node?.port}`, clusterNodes: cluster.nodeList, name: 'store-test:cluster-url', logger: recordingLogger() });
    try {
      expect(isClusterClient(client)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('refuses REDIS_URL naming a second Redis beside the node list, and a database other than 0, before connecting', async () => {
    const standalone = new URL(redisUrl()).host;
    await expect(connectRedis({ url: redisUrl(), clusterNodes: cluster.nodeList, name: 'store-test:bad', logger: recordingLogger() })).rejects.toThrow(
      new RegExp(`REDIS_URL names ${standalone} and REDIS_CLUSTER_NODES lists .*: two different Redis are configured`),
    );
    const node = cluster.nodes[0];
    await expect(
      connectRedis({ url: `redis://${node?.host}:${node?.port}/2`, clusterNodes: cluster.nodeList, name: 'store-test:bad', logger: recordingLogger() }),
    ).rejects.toThrow(/selects database 2, but a Redis Cluster has only database 0/);
  });

  it('refuses a malformed node list, naming the entry', async () => {
    await expect(connectRedis({ clusterNodes: `${cluster.nodeList},redis://x:1`, name: 'store-test:bad', logger: recordingLogger() })).rejects.toThrow(
      /REDIS_CLUSTER_NODES: "redis:\/\/x:1" is not host:port/,
    );
  });

  it('refuses nodes of two different clusters', async () => {
    const nodes = `${cluster.nodeList},${other.nodeList}`;
    await expect(connectRedis({ clusterNodes: nodes, name: 'store-test:bad', logger: recordingLogger() })).rejects.toThrow(/REDIS_CLUSTER_NODES mixes clusters/);
  });

  it('refuses a cluster with uncovered slots', async () => {
    const node = other.nodes[0];
    if (!node) throw new Error('no node');
    // Take slots 0-99 away from the one-master cluster: its slots are no longer all assigned.
    const direct = await import('redis').then(({ createClient }) => createClient({ socket: { host: node.host, port: node.port } }));
    await direct.connect();
    try {
      await direct.sendCommand(['CLUSTER', 'DELSLOTSRANGE', '0', '99']);
      await expect(connectRedis({ clusterNodes: `${node.host}:${node.port}`, name: 'store-test:bad', logger: recordingLogger() })).rejects.toThrow(
        /has uncovered slots: 16284 of 16384 assigned/,
      );
    } finally {
      direct.destroy();
    }
  });
});
