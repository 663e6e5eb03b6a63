/**
 * Vitest global setup: one private Redis per test run (per vitest project), stopped at the end.
 *
 * Use it from a project's vitest.config.ts as `globalSetup: ['@ahp/embedded-redis/vitest-global-setup']`
 * and read the URL in tests with `inject('redisUrl')`. It always starts its own server (ephemeral
 * mode): whatever `REDIS_URL` says is ignored, and while tests run `process.env.REDIS_URL` is
 * pointed at the private server, so code that falls back to `REDIS_URL` cannot reach another Redis.
 *
 * With `AHP_TEST_REDIS=cluster` it also starts a private 3-master Redis Cluster
 * (`AHP_TEST_REDIS_MASTERS` to change the size) and provides its node list as
 * `redisClusterNodes` (also `process.env.REDIS_CLUSTER_NODES`): suites that connect through it run
 * against the cluster. Otherwise `redisClusterNodes` is `''`. `REDIS_CLUSTER_NODES` from outside
 * is never used.
 */
import type { TestProject } from 'vitest/node';
// Brings 'vitest' into this module's resolution so the augmentation below can find it (types only).
import type {} from 'vitest';
import { provideRedis } from './provide-redis.js';
import { startRedisCluster, type RedisClusterHandle } from './redis-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the run's private Redis (`redis://127.0.0.1:<free port>`), from @ahp/embedded-redis. */
    redisUrl: string;
    /** `host:port,…` of the run's private Redis Cluster when `AHP_TEST_REDIS=cluster`, else `''`. */
    redisClusterNodes: string;
  }
}

/**
 * Starts the run's Redis (and cluster), provides their addresses, and returns the teardown that
 * stops them and removes their temp folders.
 */
export default async function setup(project: Pick<TestProject, 'provide'>): Promise<() => Promise<void>> {
  const redis = await provideRedis({ mode: 'ephemeral' });
  let cluster: RedisClusterHandle | undefined;
  if (process.env['AHP_TEST_REDIS'] === 'cluster') {
    try {
      cluster = await startRedisCluster({ masters: Number(process.env['AHP_TEST_REDIS_MASTERS'] ?? 3) });
    } catch (error) {
      await redis.stop();
      throw error;
    }
  }
  project.provide('redisUrl', redis.url);
  project.provide('redisClusterNodes', cluster?.nodeList ?? '');
  const previous = process.env['REDIS_URL'];
  const previousNodes = process.env['REDIS_CLUSTER_NODES'];
  // Test workers inherit this environment: anything reading REDIS_URL gets ours.
  process.env['REDIS_URL'] = redis.url;
  if (cluster) process.env['REDIS_CLUSTER_NODES'] = cluster.nodeList;
  else delete process.env['REDIS_CLUSTER_NODES'];
  return async () => {
    if (previous === undefined) delete process.env['REDIS_URL'];
    else process.env['REDIS_URL'] = previous;
    if (previousNodes === undefined) delete process.env['REDIS_CLUSTER_NODES'];
    else process.env['REDIS_CLUSTER_NODES'] = previousNodes;
    await Promise.all([redis.stop(), cluster?.stop()]);
  };
}
