/**
 * @ahp/embedded-redis: one way for every part of AHP to get a Redis URL.
 *
 * - The main job calls `provideRedis()` (persistent): `REDIS_URL` when set, otherwise the
 *   project's own redis-server with its AOF under `.data/redis`.
 * - Test suites get a private throwaway Redis, through the vitest global setup
 *   (`@ahp/embedded-redis/vitest-global-setup`) or `provideRedis({ mode: 'ephemeral' })`.
 *
 * Short checks (readiness, a data dir's owner, building a cluster) talk to Redis through
 * node-redis, one connection each, opened by `withRedisConnection`.
 */
export {
  DEFAULT_PERSISTENT_PORT,
  LOG_FILE_NAME,
  PID_FILE_NAME,
  REDIS_HOST,
  RedisDataDirBusyError,
  findWorkspaceRoot,
  provideRedis,
} from './provide-redis.js';
export type { ProvideRedisOptions, RedisHandle, RedisMode, StopRedisOptions } from './provide-redis.js';

export {
  FALLBACK_DIRS,
  RedisServerNotFoundError,
  ensureRedisServer,
  findRedisServer,
} from './find-redis-server.js';
export type {
  EnsureRedisServerOptions,
  FindRedisServerOptions,
  RedisServerLookup,
  RedisServerNotFoundReason,
} from './find-redis-server.js';

export { RedisPortInUseError, RedisStartError, probeRedis, redisArguments } from './redis-process.js';
export type { RedisExitInfo, RedisProbe } from './redis-process.js';

export { findFreePort, isPortFree } from './free-port.js';

export { redactRedisUrl, withRedisConnection } from './redis-connection.js';
export type { RedisConnection, RedisConnectionOptions } from './redis-connection.js';

export { CLUSTER_SLOTS, RedisClusterStartError, slotRanges, startRedisCluster } from './redis-cluster.js';
export type { RedisClusterHandle, RedisClusterNode, RedisClusterOptions } from './redis-cluster.js';
