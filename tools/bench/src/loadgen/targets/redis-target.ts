/**
 * `redis` baseline: one PING round trip on a node-redis client, the client the product uses.
 */
import { createClient } from 'redis';
import type { LoadTarget } from './target.js';

export async function openRedisTarget(url: string): Promise<LoadTarget> {
  const client = createClient({ url, name: 'bench-ping' });
  // A failed PING shows as a failed operation; the listener only keeps node-redis from throwing.
  client.on('error', () => undefined);
  await client.connect();
  return {
    report: { connections: 1, failed: 0, failures: [] },
    op: () => client.ping(),
    close: async () => {
      client.destroy();
    },
  };
}
