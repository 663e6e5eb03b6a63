/** `--redis-cluster N` against real redis-server processes: a local cluster started, named, and removed. */
import { existsSync } from 'node:fs';
import { withRedisConnection } from '@ahp/embedded-redis';
import { describe, expect, it } from 'vitest';
import { provideStackRedis } from '../src/stack-redis.js';

describe('provideStackRedis with --redis-cluster', () => {
  it('starts a cluster of N masters, logs each with its log file, and removes it on stop', async () => {
    const lines: string[] = [];
    const redis = await provideStackRedis({ clusterMasters: 3, dataDir: '/nonexistent', env: {}, log: (line) => lines.push(line) });
    const logs = lines.flatMap((line) => /master (\S+)\s+log (\S+)/.exec(line)?.slice(1, 3) ?? []);
    try {
      expect(redis.url).toBeUndefined();
      expect(redis.keepsData).toBe(false);
      const nodes = (redis.clusterNodes ?? '').split(',');
      expect(nodes).toHaveLength(3);
      expect(logs.filter((_, index) => index % 2 === 0)).toEqual(nodes);
      for (const file of logs.filter((_, index) => index % 2 === 1)) expect(existsSync(file)).toBe(true);
      const [host, port] = (nodes[0] ?? '').split(':');
      const info = await withRedisConnection({ host: host ?? '', port: Number(port) }, (client) => client.clusterInfo());
      expect(info).toMatch(/cluster_state:ok/);
    } finally {
      await redis.stop();
    }
    for (const file of logs.filter((_, index) => index % 2 === 1)) expect(existsSync(file)).toBe(false);
  });
});
