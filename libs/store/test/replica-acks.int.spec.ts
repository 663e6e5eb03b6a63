/**
 * Replica acknowledgements (`WAIT`) after deciding writes, on a real Redis Cluster of 3 masters
 * with one replica each (tools/embedded-redis startRedisCluster, started here): once `decide`
 * returns, the replica of the master that holds the hook already has the decision (read from the
 * replica itself), and likewise a request's settlement; asking for more replicas than exist
 * costs the timeout, keeps the write and reports the shortfall.
 */
import { startRedisCluster, withRedisConnection, type RedisClusterHandle, type RedisClusterNode } from '@ahp/embedded-redis';
import { createRequest } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, createKeys, createRedisStores, createReplicaAcks, keySlot, type RedisClient, type StoreKeys } from '../src/index.js';
import { StoreInputError } from '../src/errors.js';
import { makeDecision, makeSignal, randomUUID, recordingLogger } from './support.js';

let cluster: RedisClusterHandle;
let redis: RedisClient;
let keys: StoreKeys;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  redis = await connectRedis({ clusterNodes: cluster.nodeList, name: 'store-test:replica-acks', logger: recordingLogger() });
  keys = createKeys({ prefix: `ahp:test:wait:${randomUUID().slice(0, 8)}` });
}, 60_000);
afterAll(async () => {
  await redis?.close();
  await cluster?.stop();
});

async function command(node: Pick<RedisClusterNode, 'host' | 'port'>, ...args: string[]): Promise<unknown> {
  return withRedisConnection({ host: node.host, port: node.port, connectTimeoutMs: 2000, idleTimeoutMs: 5000 }, (client) => client.sendCommand(args));
}

/** The replica serving `key`'s slot, from the cluster's own view (`CLUSTER SHARDS` is Redis 7.0+). */
async function replicaFor(key: string): Promise<RedisClusterNode> {
  const slot = keySlot(key);
  const lines = String(await command(cluster.nodes[0]!, 'CLUSTER', 'NODES')).trim().split('\n').map((line) => line.split(' '));
  const master = lines.find((fields) => fields[2]!.includes('master') && fields.slice(8).some((range) => {
    const [from, to] = range.split('-').map(Number);
    return slot >= from! && slot <= (to ?? from)!;
  }));
  const replicaId = lines.find((fields) => fields[3] === master?.[0])?.[0];
  const replica = cluster.nodes.find((node) => node.id === replicaId);
  if (!replica) throw new Error(`no replica serves slot ${slot}`);
  return replica;
}

/** Reads a hash field on the replica itself (READONLY in the same connection, so the replica answers instead of redirecting). */
async function onReplica(key: string, field: string): Promise<unknown> {
  const replica = await replicaFor(key);
  return withRedisConnection({ host: replica.host, port: replica.port, connectTimeoutMs: 2000, idleTimeoutMs: 5000 }, async (client) => {
    await client.readonly();
    return client.hGet(key, field);
  });
}

/** WAIT calls all masters have served so far (INFO commandstats). */
async function waitCalls(): Promise<number> {
  let total = 0;
  for (const master of cluster.masters) {
    const info = String(await command(master, 'INFO', 'commandstats'));
    total += Number(/^cmdstat_wait:calls=(\d+)/m.exec(info)?.[1] ?? 0);
  }
  return total;
}

describe('replica acknowledgements on a Redis Cluster with one replica per master', () => {
  it('a decided hook is on its replica when decide returns, with no shortfall', async () => {
    const logger = recordingLogger();
    const replicaAcks = createReplicaAcks(redis, { replicas: 1, timeoutMs: 2_000 }, logger);
    const stores = createRedisStores({ redis, keys, replicaAcks });
    const waitsBefore = await waitCalls();
    for (let i = 0; i < 20; i++) {
      const hookId = randomUUID();
      const now = Date.now();
      expect((await stores.hooks.open({ hookId, agentId: 'agent-1', sessionId: 'session-1', gatewayId: 'gw-a', trigger: 'pre-tool-use', now, deadlineAt: now + 5_000 })).kind).toBe('created');
      const decided = await stores.hooks.decide(hookId, makeDecision(hookId, [makeSignal('block')]), now + 1);
      expect(decided.first).toBe(true);
      // No wait for replication here: the store already waited for it.
      expect(await onReplica(keys.hook(hookId), 'status')).toBe('decided');
    }
    // One WAIT per decision, on the master that holds the hook (replication alone is fast enough
    // to pass the reads above by luck; this shows the store did not rely on it).
    expect((await waitCalls()) - waitsBefore).toBe(20);
    expect(replicaAcks.shortfalls).toBe(0);
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });

  it('a settled request is on its replica when decide returns', async () => {
    const stores = createRedisStores({ redis, keys, replicaAcks: createReplicaAcks(redis, { replicas: 1, timeoutMs: 2_000 }) });
    const now = Date.now();
    const requestId = `req_${randomUUID().slice(0, 8)}`;
    const state = createRequest({
      requestId,
      sender: 'agent-1',
      target: { kind: 'agent', agent: 'lead' },
      now: new Date(now).toISOString(),
      deadline: new Date(now + 3_600_000).toISOString(),
      type: 'plan_approval',
      payload: { plan: { title: 'Ship it', steps: [{ id: 's1', description: 'release', dependencies: [], status: 'pending', tools_expected: ['Bash'] }] } },
    });
    expect(await stores.requests.create(state, now)).toMatchObject({ created: true });
    await stores.requests.decide(requestId, { request_id: requestId, type: 'plan_approval_response', approve: true }, { kind: 'agent', id: 'lead' }, now + 1_000);
    expect(String(await onReplica(keys.request(requestId), 'state'))).toContain('"status":"approved"');
  });

  it('asking for more replicas than exist keeps the write, costs the timeout and reports the shortfall', async () => {
    const logger = recordingLogger();
    const replicaAcks = createReplicaAcks(redis, { replicas: 2, timeoutMs: 50 }, logger);
    const stores = createRedisStores({ redis, keys, replicaAcks });
    const hookId = randomUUID();
    const now = Date.now();
    await stores.hooks.open({ hookId, agentId: 'agent-1', sessionId: 'session-1', gatewayId: 'gw-a', trigger: 'pre-tool-use', now, deadlineAt: now + 5_000 });
    expect((await stores.hooks.decide(hookId, makeDecision(hookId), now + 1)).first).toBe(true);
    expect((await stores.hooks.get(hookId))?.decision).toBeDefined();
    expect(replicaAcks.shortfalls).toBe(1);
    expect(logger.lines.filter((line) => line.level === 'warn')).toMatchObject([{ fields: { key: keys.hook(hookId), replicas: 2, acknowledged: 1, timeoutMs: 50 } }]);
  });

  it('is off at 0 replicas and refuses options that are not whole numbers in range', () => {
    expect(createReplicaAcks(redis, { replicas: 0, timeoutMs: 10 }).enabled).toBe(false);
    expect(createReplicaAcks(redis, undefined).enabled).toBe(false);
    expect(() => createReplicaAcks(redis, { replicas: 1.5, timeoutMs: 10 })).toThrow(StoreInputError);
    expect(() => createReplicaAcks(redis, { replicas: 1, timeoutMs: 0 })).toThrow(StoreInputError);
    expect(() => createReplicaAcks(redis, { replicas: 17, timeoutMs: 10 })).toThrow(StoreInputError);
  });
});
