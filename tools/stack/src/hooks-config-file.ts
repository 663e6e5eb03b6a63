/**
 * The main job's hooks configuration: `.ahp/hooks.yaml` in the workspace, published to Redis when
 * its text differs from the current version, so `npm start` runs what the file says.
 */
import { readFile } from 'node:fs/promises';
import { validateHooksConfig, type ConfigIssue, type Oracle } from '@ahp/oracles';
import { connectRedis, createConfigStore, createKeys, type Logger } from '@ahp/store';

/** What {@link publishHooksFile} did. */
export type HooksFileOutcome =
  /** No file: the workers keep whatever is current (or the built-in defaults). */
  | { kind: 'absent' }
  /** Stored as a new version, or already the current version's text. */
  | { kind: 'published' | 'unchanged'; version: number }
  /** The file has issues: nothing was published; `current` is the version still in force (null: the defaults). */
  | { kind: 'invalid'; issues: ConfigIssue[]; current: number | null };

/** Options of {@link publishHooksFile}. */
export interface PublishHooksFileOptions {
  /** One Redis; or `redisClusterNodes` for a Redis Cluster. */
  redisUrl?: string;
  /** A Redis Cluster, `host:port,host:port…` (as REDIS_CLUSTER_NODES). */
  redisClusterNodes?: string;
  /** @defaultValue "ahp" */
  keyPrefix?: string;
  /** The file, e.g. `<workspace>/.ahp/hooks.yaml`. */
  path: string;
  /** Recorded as the publisher. @defaultValue "npm start" */
  publishedBy?: string;
  /** Oracle plugins the workers load, so oracle names resolve as they will there. */
  plugins?: readonly Oracle[];
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Validates the file and publishes it when its text differs from the current version's. An
 * invalid file publishes nothing: the workers keep running on the version in force.
 */
export async function publishHooksFile(options: PublishHooksFileOptions): Promise<HooksFileOutcome> {
  let source: string;
  try {
    source = await readFile(options.path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    throw error;
  }
  const redis = await connectRedis({ url: options.redisUrl, clusterNodes: options.redisClusterNodes, name: 'ahp-stack-config', logger: silent });
  try {
    const store = createConfigStore({ redis, keys: createKeys({ prefix: options.keyPrefix ?? 'ahp' }) });
    const result = validateHooksConfig(source, { plugins: [...(options.plugins ?? [])] });
    if (!result.ok) return { kind: 'invalid', issues: result.issues, current: await store.currentVersion() };
    const outcome = await store.publish({ source, config: result.config, publishedBy: options.publishedBy ?? 'npm start', now: Date.now() });
    return { kind: outcome.unchanged ? 'unchanged' : 'published', version: outcome.version };
  } finally {
    await redis.close();
  }
}
