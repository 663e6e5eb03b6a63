/**
 * Helpers for test suites that share one Redis. Free of vitest (and of any test framework), so
 * it is safe to import from anywhere.
 */
import { randomBytes } from 'node:crypto';

/** Every test key starts with this, so a stray test key is recognisable in any Redis. */
export const TEST_KEY_ROOT = 'ahp:test:';

/**
 * A key prefix no other suite (or other run of this one) will use: `ahp:test:<name>:<random>:`,
 * or `ahp:test:<random>:` without a name. Suites sharing the run's Redis isolate their keys (and
 * BullMQ queues, via its `prefix` option) by it instead of flushing the database, which would
 * wipe the data of suites running in parallel.
 *
 * @param testName - optional, for readability when inspecting keys; reduced to `[a-z0-9-]`, 40
 *   characters at most.
 */
export function uniqueKeyPrefix(testName?: string): string {
  const random = randomBytes(6).toString('hex');
  const slug = (testName ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug === '' ? `${TEST_KEY_ROOT}${random}:` : `${TEST_KEY_ROOT}${slug}:${random}:`;
}
