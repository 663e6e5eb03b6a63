/**
 * Gives the product the benchmark's rules: the example configuration is published to the stack's
 * Redis (its key prefix) before the workers start, as `ahp config publish` would; each worker
 * compiles the current version at start. Afterwards the workers' own ready log lines say which
 * version they run, so the report states what the workers really evaluated.
 */
import type { ServiceProcess } from '@ahp/stack';
import { connectRedis, createConfigStore, createKeys } from '@ahp/store';
import { HOOKS_CONFIG_PATH, type BenchRules } from '../shared/rule-config.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Where the stack's Redis is: one Redis (`url`) or a cluster (`clusterNodes`, `host:port,…`). */
export interface StackRedisTarget {
  url?: string;
  clusterNodes?: string;
}

/** Publishes the rules' configuration under `keyPrefix`; returns the version, or why nothing was published. */
export async function publishRules(redisTarget: StackRedisTarget, keyPrefix: string, rules: BenchRules): Promise<{ version?: number; note: string }> {
  if (rules.config === undefined) return { note: 'nothing to publish (no compiled configuration)' };
  const redis = await connectRedis({ url: redisTarget.url, clusterNodes: redisTarget.clusterNodes, name: 'bench-config-publisher', logger: silent });
  try {
    const store = createConfigStore({ redis, keys: createKeys({ prefix: keyPrefix }) });
    const { version } = await store.publish({ source: rules.config.source, config: rules.config.parsed, publishedBy: 'ahp-bench', now: Date.now() });
    return { version, note: `published as version ${version}` };
  } finally {
    await redis.close();
  }
}

/**
 * The hooks configuration version in a worker's "oracle worker ready" log line: a number, null
 * when the line names none, undefined while the line has not been seen.
 */
export function workerConfigVersion(lines: readonly string[]): number | null | undefined {
  for (const line of lines) {
    if (!line.includes('"oracle worker ready"')) continue;
    try {
      const version = (JSON.parse(line) as { configVersion?: unknown }).configVersion;
      return typeof version === 'number' ? version : null;
    } catch {
      return null;
    }
  }
  return undefined;
}

/**
 * What the workers evaluate with, in words, from what was published and what they reported. The
 * log line follows the ready line that started them, so it is waited for (briefly).
 */
export async function describeWorkerRules(published: { version?: number; note: string }, workers: readonly ServiceProcess[]): Promise<string> {
  const until = Date.now() + 3000;
  let versions = workers.map((worker) => workerConfigVersion(worker.recentLines()));
  while (versions.some((version) => version === undefined) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    versions = workers.map((worker) => workerConfigVersion(worker.recentLines()));
  }
  if (published.version !== undefined && versions.length > 0 && versions.every((version) => version === published.version)) {
    return `${HOOKS_CONFIG_PATH}, ${published.note}, compiled by every worker`;
  }
  const why = published.version === undefined ? published.note : `${HOOKS_CONFIG_PATH} ${published.note}, but the workers report no configuration version`;
  return `the workers' built-in defaultOracles() (permission-check) — ${why}`;
}
