import { describe, expect, it } from 'vitest';
import { AmbiguousRedisError, provideStackRedis } from './stack-redis.js';
import { redisEnvironment } from './start-stack.js';

describe('provideStackRedis', () => {
  it('refuses --redis-cluster with REDIS_URL or REDIS_CLUSTER_NODES set, naming them', async () => {
    const log = () => undefined;
    await expect(provideStackRedis({ clusterMasters: 3, dataDir: '/nonexistent', env: { REDIS_URL: 'redis://x:1' }, log })).rejects.toThrow(AmbiguousRedisError);
    await expect(
      provideStackRedis({ clusterMasters: 3, dataDir: '/nonexistent', env: { REDIS_URL: 'redis://x:1', REDIS_CLUSTER_NODES: 'a:1' }, log }),
    ).rejects.toThrow(/but REDIS_URL and REDIS_CLUSTER_NODES are set too/);
  });

  it("passes the user's cluster through, with REDIS_URL for its credentials, starting nothing", async () => {
    const redis = await provideStackRedis({
      clusterMasters: undefined,
      dataDir: '/nonexistent',
      env: { REDIS_CLUSTER_NODES: 'a:7000,b:7000', REDIS_URL: 'rediss://user:pw@a:7000' },
      log: () => undefined,
    });
    expect(redis).toMatchObject({ url: 'rediss://user:pw@a:7000', clusterNodes: 'a:7000,b:7000', keepsData: true });
  });
});

describe('redisEnvironment', () => {
  it('sets the variable of the Redis given and clears the other, so an inherited one cannot name a second Redis', () => {
    expect(redisEnvironment({ redisUrl: 'redis://127.0.0.1:6390' })).toEqual({ REDIS_URL: 'redis://127.0.0.1:6390', REDIS_CLUSTER_NODES: '' });
    expect(redisEnvironment({ redisClusterNodes: '127.0.0.1:7000' })).toEqual({ REDIS_URL: '', REDIS_CLUSTER_NODES: '127.0.0.1:7000' });
    expect(() => redisEnvironment({})).toThrow(TypeError);
  });
});
