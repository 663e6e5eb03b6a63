/**
 * ConfigStore on Redis: the published versions of the hooks configuration, the current one, and
 * a watch that tells every worker when a new one becomes current.
 */
import { createHash } from 'node:crypto';
import {
  ConfigVersionSummarySchema,
  StoredConfigVersionSchema,
  type ConfigVersionSummary,
  type StoredConfigVersion,
} from '@ahp/protocol';
import { silentLogger, type Logger } from '@ahp/protocol';
import type { ConfigStore } from './contracts.js';
import { StoreDataError, StoreInputError } from './errors.js';
import type { StoreKeys } from './keys.js';
import { LuaScript, arrayReply, badReply, parseStored, parseStoredJson, stringAt } from './lua.js';
import { watchChannel } from './channel-watch.js';
import type { RedisClient } from './redis-client.js';
import { PUBLISH_CONFIG_LUA } from './scripts/publish-config.lua.js';
import { describeIssues } from './validate.js';

const publishConfig = new LuaScript('publish-config', PUBLISH_CONFIG_LUA);

/** Default of the `recheckMs` option of `watch`: 5 seconds. */
export const DEFAULT_CONFIG_RECHECK_MS = 5_000;

/** Options of {@link createConfigStore}. */
export interface ConfigStoreOptions {
  /** A connected client; `watch` subscribes on its own `duplicate()` of it. */
  redis: RedisClient;
  keys: StoreKeys;
  /**
   * Where `watch` reports connection problems and callbacks that throw.
   * @defaultValue no logging
   */
  logger?: Logger;
}

/** What the Redis ConfigStore offers beyond {@link ConfigStore}: the bare current number. */
export interface RedisConfigStore extends ConfigStore {
  /** The current version number, or `null` when nothing was ever published (one cheap read). */
  currentVersion(): Promise<number | null>;
}


/** SHA-256 of a configuration text (UTF-8), lowercase hex: the identity `publish` compares. */
export function configDigest(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex');
}

function positiveVersion(raw: string | null | undefined, key: string, field: string): number | null {
  if (raw === null || raw === undefined) return null;
  const version = Number(raw);
  if (!Number.isSafeInteger(version) || version <= 0) throw new StoreDataError(key, `is not a version number: ${JSON.stringify(raw)}`, { field });
  return version;
}

/**
 * Creates the Redis ConfigStore. See {@link ConfigStore} for the guarantees and
 * scripts/publish-config.lua.ts for the steps.
 *
 * - `publish` validates what it stores with the protocol's `StoredConfigVersionSchema` (whose
 *   `config` is the hooks configuration schema) and throws StoreInputError otherwise. The text's
 *   SHA-256 decides "unchanged": whitespace and comments count, since the text is what people
 *   read back with `show` and `diff`.
 * - Versions are kept for ever (a hooks.yaml is a few KB); `history` lists them newest first.
 * - `get` and `current` parse what they read with the same schema (StoreDataError otherwise).
 * - `watch` calls back right after it subscribed with the version current then (if any), then
 *   with every newer current version: at once through pub/sub, and at the latest after
 *   `recheckMs` through a re-read of the current version, which also covers messages lost while
 *   the subscriber was reconnecting. Versions only grow, and a callback gets each number at most
 *   once and never a lower number after a higher one. The callback must not throw (a throw is
 *   logged and ignored); it runs synchronously, so a slow reaction belongs in the caller's own
 *   queue.
 */
export function createConfigStore(options: ConfigStoreOptions): RedisConfigStore {
  const { redis, keys } = options;
  const logger = options.logger ?? silentLogger;

  async function currentVersion(): Promise<number | null> {
    return positiveVersion(await redis.hGet(keys.configMeta, 'current'), keys.configMeta, 'current');
  }

  async function get(version: number): Promise<StoredConfigVersion | null> {
    if (!Number.isSafeInteger(version) || version <= 0) throw new StoreInputError(`config version must be a positive integer, got ${version}`);
    const raw = await redis.hGet(keys.configVersions, String(version));
    if (raw === null || raw === undefined) return null;
    const stored = parseStoredJson(raw, keys.configVersions, String(version));
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
      throw new StoreDataError(keys.configVersions, 'is not a JSON object', { field: String(version) });
    }
    return parseStored(StoredConfigVersionSchema, { ...stored, version }, keys.configVersions, String(version));
  }

  return {
    currentVersion,
    get,

    async publish(input): Promise<{ version: number; unchanged: boolean }> {
      const digest = configDigest(input.source);
      const checked = StoredConfigVersionSchema.safeParse({
        version: 1,
        source: input.source,
        digest,
        published_at: new Date(input.now).toISOString(),
        published_by: input.publishedBy,
        config: input.config,
      });
      if (!checked.success) throw new StoreInputError(`cannot publish the configuration: ${describeIssues(checked.error.issues)}`);
      const { version: _placeholder, ...payload } = checked.data;
      const reply = arrayReply(
        await publishConfig.run(redis, [keys.configMeta, keys.configVersions], [digest, JSON.stringify(payload), keys.configChannel]),
        keys.configMeta,
        publishConfig.name,
      );
      const outcome = stringAt(reply, 0, keys.configMeta, publishConfig.name);
      const version = positiveVersion(stringAt(reply, 1, keys.configMeta, publishConfig.name), keys.configMeta, 'current');
      if (version === null || (outcome !== 'published' && outcome !== 'unchanged')) throw badReply(keys.configMeta, publishConfig.name, reply);
      return { version, unchanged: outcome === 'unchanged' };
    },

    async current(): Promise<StoredConfigVersion | null> {
      const version = await currentVersion();
      if (version === null) return null;
      const stored = await get(version);
      if (stored === null) throw new StoreDataError(keys.configVersions, `current version ${version} is missing`, { field: String(version) });
      return stored;
    },

    async history(limit: number): Promise<ConfigVersionSummary[]> {
      if (!Number.isSafeInteger(limit) || limit <= 0) throw new StoreInputError(`history limit must be a positive integer, got ${limit}`);
      const newest = positiveVersion(await redis.hGet(keys.configMeta, 'seq'), keys.configMeta, 'seq');
      if (newest === null) return [];
      const versions: number[] = [];
      for (let version = newest; version >= 1 && versions.length < limit; version -= 1) versions.push(version);
      const raws = await redis.hmGet(keys.configVersions, versions.map(String));
      const summaries: ConfigVersionSummary[] = [];
      versions.forEach((version, index) => {
        const raw = raws[index];
        if (raw === null || raw === undefined) return;
        const stored = parseStoredJson(raw, keys.configVersions, String(version));
        const summary = parseStored(ConfigVersionSummarySchema, { ...(stored as object), version }, keys.configVersions, String(version));
        summaries.push({ version: summary.version, digest: summary.digest, published_at: summary.published_at, published_by: summary.published_by });
      });
      return summaries;
    },

    watch(onVersion, watchOptions = {}): Promise<{ stop(): Promise<void> }> {
      return watchChannel<number | null>({
        redis,
        logger,
        prefix: keys.prefix,
        what: 'config',
        channel: keys.configChannel,
        recheckMs: watchOptions.recheckMs ?? DEFAULT_CONFIG_RECHECK_MS,
        read: currentVersion,
        // Versions only grow: an older one read late is not news.
        isNews: (next, last) => next !== null && next > (last ?? 0),
        onValue: (version) => {
          if (version !== null) onVersion(version);
        },
      });
    },
  };
}
