/**
 * Which Redis `npm start` runs the stack on: a local Redis Cluster it starts (`--redis-cluster N`),
 * the user's cluster (`REDIS_CLUSTER_NODES`), the user's Redis (`REDIS_URL`), or the embedded one
 * with AOF under the data folder.
 */
import { join } from 'node:path';
import { LOG_FILE_NAME, provideRedis, redactRedisUrl, startRedisCluster } from '@ahp/embedded-redis';

/** The Redis of the stack, as the processes are to be told of it. */
export interface StackRedis {
  /** `REDIS_URL` for the processes (with a cluster: the user's, for its scheme and credentials, or undefined). */
  url: string | undefined;
  /** `REDIS_CLUSTER_NODES` for the processes, when a cluster. */
  clusterNodes: string | undefined;
  /** Whether the next start finds this run's data again (not for the throwaway local cluster). */
  keepsData: boolean;
  /** One line for the "AHP is running" summary. */
  summary: string;
  /** Stops what was started here (nothing for the user's own Redis). */
  stop(): Promise<void>;
}

/** `npm start` was given two Redis at once. */
export class AmbiguousRedisError extends Error {
  override readonly name = 'AmbiguousRedisError';
}

export interface ProvideStackRedisOptions {
  /** `--redis-cluster N`: start a local cluster of N masters. */
  clusterMasters: number | undefined;
  /** The data folder (the embedded Redis keeps its AOF in `<dataDir>/redis`). */
  dataDir: string;
  /** @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
  /** Progress lines. */
  log: (line: string) => void;
}

/**
 * Starts or names the stack's Redis.
 * @throws AmbiguousRedisError for `--redis-cluster` with `REDIS_URL` or `REDIS_CLUSTER_NODES` set:
 *   the user named a Redis of their own and asked for a new one, and we will not guess which.
 */
export async function provideStackRedis(options: ProvideStackRedisOptions): Promise<StackRedis> {
  const env = options.env ?? process.env;
  const ownUrl = env['REDIS_URL']?.trim() || undefined;
  const ownNodes = env['REDIS_CLUSTER_NODES']?.trim() || undefined;
  if (options.clusterMasters !== undefined) {
    const set = [ownUrl ? 'REDIS_URL' : '', ownNodes ? 'REDIS_CLUSTER_NODES' : ''].filter((name) => name !== '');
    if (set.length > 0) {
      throw new AmbiguousRedisError(
        `--redis-cluster starts a local Redis Cluster, but ${set.join(' and ')} ${set.length > 1 ? 'are' : 'is'} set too: unset ${set.length > 1 ? 'them' : 'it'}, or leave out --redis-cluster to use your own Redis`,
      );
    }
    options.log(`starting a local Redis Cluster of ${options.clusterMasters} masters (throwaway: its data is removed on exit)`);
    const cluster = await startRedisCluster({ masters: options.clusterMasters, log: (line) => options.log(line) });
    for (const node of cluster.masters) {
      options.log(`  master ${node.host}:${node.port}  log ${join(node.dataDir, LOG_FILE_NAME)}`);
    }
    return {
      url: undefined,
      clusterNodes: cluster.nodeList,
      keepsData: false,
      summary: `cluster ${cluster.nodeList} (local, ${cluster.masters.length} masters; logs under ${join(cluster.masters[0]?.dataDir ?? '', '..')})`,
      stop: () => cluster.stop(),
    };
  }
  if (ownNodes) {
    options.log('using the Redis Cluster at REDIS_CLUSTER_NODES');
    return { url: ownUrl, clusterNodes: ownNodes, keepsData: true, summary: `cluster ${ownNodes}`, stop: async () => undefined };
  }
  options.log(ownUrl ? 'using Redis at REDIS_URL' : `starting embedded Redis (AOF in ${join(options.dataDir, 'redis')})`);
  const redis = await provideRedis({ mode: 'persistent', dataDir: join(options.dataDir, 'redis'), env });
  return {
    url: redis.url,
    clusterNodes: undefined,
    keepsData: true,
    summary: `${redactRedisUrl(redis.url)}${redis.embedded ? ' (embedded)' : ''}`,
    stop: () => redis.stop(),
  };
}
