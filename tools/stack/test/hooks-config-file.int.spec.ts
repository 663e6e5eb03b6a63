/**
 * The main job's `.ahp/hooks.yaml` step against a throwaway Redis: absent file, first publish,
 * unchanged text, a changed text, and an invalid file that publishes nothing.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { provideRedis, type RedisHandle } from '@ahp/embedded-redis';
import { connectRedis, createConfigStore, createKeys } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishHooksFile } from '../src/hooks-config-file.js';

const CONFIG = `version: 1
hooks:
  post-issue-submit:
    oracles:
      - name: notification
        rules:
          - condition: "true"
            intensity: aid
            message: "reviewers notified"
`;

let redis: RedisHandle;
let dir: string;

beforeAll(async () => {
  redis = await provideRedis({ mode: 'ephemeral' });
  dir = await mkdtemp(join(tmpdir(), 'ahp-stack-hooks-'));
}, 60_000);

afterAll(async () => {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('publishHooksFile', () => {
  it('publishes the file when it changed, and nothing when it is absent, unchanged or invalid', async () => {
    const path = join(dir, 'hooks.yaml');
    const options = { redisUrl: redis.url, keyPrefix: 'stack-test', path };
    expect(await publishHooksFile(options)).toEqual({ kind: 'absent' });

    await writeFile(path, CONFIG);
    expect(await publishHooksFile(options)).toEqual({ kind: 'published', version: 1 });
    expect(await publishHooksFile(options)).toEqual({ kind: 'unchanged', version: 1 });
    await writeFile(path, CONFIG.replace('reviewers notified', 'reviewers told'));
    expect(await publishHooksFile(options)).toEqual({ kind: 'published', version: 2 });

    await writeFile(path, CONFIG.replace('intensity: aid', 'intensity: block'));
    const invalid = await publishHooksFile(options);
    expect(invalid).toMatchObject({ kind: 'invalid', current: 2, issues: [{ line: 8, path: 'hooks.post-issue-submit.oracles[0].rules[0].intensity' }] });

    const client = await connectRedis({ url: redis.url, name: 'stack-test', logger: { debug() {}, info() {}, warn() {}, error() {} } });
    try {
      const stored = await createConfigStore({ redis: client, keys: createKeys({ prefix: 'stack-test' }) }).current();
      expect(stored).toMatchObject({ version: 2, published_by: 'npm start' });
    } finally {
      await client.close();
    }
  });
});
