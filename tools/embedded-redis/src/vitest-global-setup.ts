/**
 * Vitest global setup: one private Redis per test run (per vitest project), stopped at the end.
 *
 * Use it from a project's vitest.config.ts as `globalSetup: ['@ahp/embedded-redis/vitest-global-setup']`
 * and read the URL in tests with `inject('redisUrl')`. It always starts its own server (ephemeral
 * mode): whatever `REDIS_URL` says is ignored, and while tests run `process.env.REDIS_URL` is
 * pointed at the private server, so code that falls back to `REDIS_URL` cannot reach another Redis.
 */
import type { TestProject } from 'vitest/node';
// Brings 'vitest' into this module's resolution so the augmentation below can find it (types only).
import type {} from 'vitest';
import { provideRedis } from './provide-redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the run's private Redis (`redis://127.0.0.1:<free port>`), from @ahp/embedded-redis. */
    redisUrl: string;
  }
}

/**
 * Starts the run's Redis, provides its URL as `redisUrl`, and returns the teardown that stops
 * it and removes its temp folder.
 */
export default async function setup(project: Pick<TestProject, 'provide'>): Promise<() => Promise<void>> {
  const redis = await provideRedis({ mode: 'ephemeral' });
  project.provide('redisUrl', redis.url);
  const previous = process.env['REDIS_URL'];
  // Test workers inherit this environment: anything reading REDIS_URL gets ours.
  process.env['REDIS_URL'] = redis.url;
  return async () => {
    if (previous === undefined) delete process.env['REDIS_URL'];
    else process.env['REDIS_URL'] = previous;
    await redis.stop();
  };
}
