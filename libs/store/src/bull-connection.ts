/**
 * The connection BullMQ uses for the hook queue, from the client the stores use.
 *
 * One Redis: BullMQ takes the node-redis client as it is (it duplicates it for its blocking
 * reads). A cluster: BullMQ 6 drives clusters through ioredis only (its node-redis adapter has no
 * cluster support), so an ioredis `Cluster` is opened from the same root nodes, credentials and name,
 * and closed with the queue or worker that opened it.
 */
import { Cluster } from 'ioredis';
import type { Logger } from '@ahp/protocol';
import { clusterRootNodesOf, isClusterClient, type RedisClient } from './redis-client.js';

/** What to pass as BullMQ's `connection`, and how to release it. */
export interface BullConnection {
  readonly connection: RedisClient | Cluster;
  /** Closes what was opened here (nothing for one Redis: the caller owns its client). */
  close(): Promise<void>;
}

/**
 * @throws Error for a cluster client not made by `connectRedis` (its root nodes are unknown).
 */
export function openBullConnection(redis: RedisClient, logger?: Logger): BullConnection {
  if (!isClusterClient(redis)) return { connection: redis, close: async () => undefined };
  const roots = clusterRootNodesOf(redis);
  if (!roots) throw new Error('the hook queue needs a cluster client made by connectRedis (its root nodes are not known otherwise)');
  const { url } = roots;
  const cluster = new Cluster(
    roots.nodes.map((node) => ({ host: node.host, port: node.port })),
    {
      redisOptions: {
        connectionName: `${roots.name}:bull`.slice(0, 128),
        // BullMQ's workers block on BZPOPMIN and must never give up a command (its own rule).
        maxRetriesPerRequest: null,
        ...(url?.username ? { username: decodeURIComponent(url.username) } : {}),
        ...(url?.password ? { password: decodeURIComponent(url.password) } : {}),
        ...(url?.protocol === 'rediss:' ? { tls: {} } : {}),
      },
      // After a failover the slot map changes: refresh it quickly and retry redirected commands.
      slotsRefreshTimeout: 2000,
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 300,
      clusterRetryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 6), 5000),
    },
  );
  cluster.on('error', (error: Error) => logger?.warn({ redisClient: `${roots.name}:bull`, error: error.message }, 'bullmq cluster connection error'));
  let closing: Promise<void> | undefined;
  return {
    connection: cluster,
    close() {
      closing ??= cluster.quit().then(
        () => undefined,
        () => cluster.disconnect(),
      );
      return closing;
    },
  };
}
