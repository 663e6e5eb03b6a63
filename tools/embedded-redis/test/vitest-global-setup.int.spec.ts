import { existsSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { withRedisConnection } from '../src/redis-connection.js';
import setup from '../src/vitest-global-setup.js';

async function ping(url: string): Promise<string> {
  return withRedisConnection({ url }, (client) => client.ping());
}

describe('vitest global setup', () => {
  it("provides the run's private Redis as inject('redisUrl')", async () => {
    const url = inject('redisUrl');
    expect(url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toBe('redis://127.0.0.1:6379');
    await expect(ping(url)).resolves.toBe('PONG');
  });

  it('points REDIS_URL of the test workers at that same Redis', () => {
    expect(process.env['REDIS_URL']).toBe(inject('redisUrl'));
  });

  it('starts a Redis on setup and stops it, restoring REDIS_URL, on teardown', async () => {
    const provided = new Map<string, unknown>();
    const before = process.env['REDIS_URL'];
    const teardown = await setup({ provide: (key, value) => void provided.set(key, value) });
    const url = provided.get('redisUrl') as string;
    expect(url).not.toBe(before);
    expect(process.env['REDIS_URL']).toBe(url);
    await expect(ping(url)).resolves.toBe('PONG');
    const dataDir = await withRedisConnection({ url }, async (client) => (await client.configGet('dir'))['dir']);

    await teardown();
    expect(process.env['REDIS_URL']).toBe(before);
    await expect(ping(url)).rejects.toThrow();
    expect(dataDir).toBeDefined();
    expect(existsSync(dataDir!)).toBe(false);
  });
});
