/**
 * What reaches BullMQ's job hash in Redis: the hook context with its secret-named fields replaced
 * by keyed-hash markers. Real parts: a private Redis (test support), the store's HookQueue.
 */
import type { HookJobData, JsonValue } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHookQueue, redactionMarkerFor, toolInputDigest, type RedisClient } from '../src/index.js';
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
      const marker = expect.stringMatching(/^\[redacted:[0-9a-f]{32}\]$/);
      expect(data.context).toEqual({
        tool: 'Bash',
        input: { command: 'curl -H "Authorization: Bearer visible-to-rules" https://example.test', env: { GITHUB_TOKEN: marker, PATH: '/bin' } },
        headers: { Authorization: marker, 'X-Api-Key': marker },
        password: marker,
      });
      expect(JSON.stringify(hash)).not.toMatch(/secret-[1-4]/);
      // The deployment's key, created by this first enqueue, made the markers.
      const key = await redis.get(keys.redactionKey);
      expect(data.context['password']).toBe(redactionMarkerFor(key ?? '', 'secret-4'));
    } finally {
      await queue.close();
    }
  });

  // Audit finding 7: two inputs differing only in a secret had one digest, so an approval or a
  // grant for one covered the other.
  it('gives inputs that differ only in a secret different digests, and equal secrets equal ones; a configured key wins', async () => {
    const keys = testKeys('queue-redaction-digest');
    const queue = createHookQueue({ redis, keys, redactionKey: 'k'.repeat(32) });
    const queued = async (token: JsonValue) => {
      const now = Date.now();
      const job: HookJobData = {
        hook_id: randomUUID(),
        trigger: 'pre-tool-use',
        agent: { id: 'agent-1', name: 'Agent 1' },
        session_id: 'session-1',
        context: { tool: { name: 'mcp__db__query', input: { sql: 'select 1', access_token: token } } },
        enqueued_at: now,
        deadline_at: now + 60_000,
      };
      await queue.enqueue(job);
      const shard = queue.shards[0];
      const data = JSON.parse((await redis.hGetAll(`${shard?.prefix}:${shard?.name}:${job.hook_id}`))['data'] ?? '{}') as HookJobData;
      return (data.context['tool'] as { input: Record<string, unknown> }).input;
    };
    try {
      const a = await queued('tenant-A');
      const admin = await queued('tenant-PROD-ADMIN');
      const again = await queued('tenant-A');
      const object = await queued({ role: 'superuser' });
      expect(toolInputDigest(a)).not.toBe(toolInputDigest(admin));
      expect(toolInputDigest(a)).toBe(toolInputDigest(again));
      expect(a['access_token']).toBe(redactionMarkerFor('k'.repeat(32), 'tenant-A'));
      expect(JSON.stringify(object)).not.toContain('superuser');
      expect(await redis.get(keys.redactionKey)).toBeNull();
    } finally {
      await queue.close();
    }
  });
});
