/**
 * What reaches BullMQ's job hash in Redis: the hook context without its secret-named fields.
 */
import type { HookJobData } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHookQueue, type RedisClient } from '../src/index.js';
import { openClient, randomUUID, testKeys } from './support.js';

let redis: RedisClient;

beforeAll(async () => {
  redis = await openClient('store-test:queue-redaction');
});
afterAll(async () => {
  await redis.close();
});

describe('HookQueue job data', () => {
  it('stores the context with secret fields redacted and everything else as sent', async () => {
    const keys = testKeys('queue-redaction');
    const queue = createHookQueue({ redis, keys });
    const now = Date.now();
    const job: HookJobData = {
      hook_id: randomUUID(),
      trigger: 'pre-tool-use',
      agent: { id: 'agent-1', name: 'Agent 1' },
      session_id: 'session-1',
      context: {
        tool: 'Bash',
        input: { command: 'curl -H "Authorization: Bearer visible-to-rules" https://example.test', env: { GITHUB_TOKEN: 'ghp_secret-1', PATH: '/bin' } },
        headers: { Authorization: 'Bearer secret-2', 'X-Api-Key': 'secret-3' },
        password: 'secret-4',
      },
      enqueued_at: now,
      deadline_at: now + 60_000,
    };
    try {
      await queue.enqueue(job);
      // The job hash of its shard (under a cluster even one shard carries a hash tag).
      const shard = queue.shards[0];
      const hash = await redis.hGetAll(`${shard?.prefix}:${shard?.name}:${job.hook_id}`);
      const data = JSON.parse(hash['data'] ?? '{}') as HookJobData;
      expect(data.context).toEqual({
        tool: 'Bash',
        input: { command: 'curl -H "Authorization: Bearer visible-to-rules" https://example.test', env: { GITHUB_TOKEN: '[redacted]', PATH: '/bin' } },
        headers: { Authorization: '[redacted]', 'X-Api-Key': '[redacted]' },
        password: '[redacted]',
      });
      expect(JSON.stringify(hash)).not.toMatch(/secret-[1-4]/);
    } finally {
      await queue.close();
    }
  });
});
