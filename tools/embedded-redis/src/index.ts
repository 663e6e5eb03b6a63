/**
 * @ahp/embedded-redis: one way for every part of AHP to get a Redis URL.
 *
 * - The main job calls `provideRedis()` (persistent): `REDIS_URL` when set, otherwise the
 *   project's own redis-server with its AOF under `.data/redis`.
 * - Test suites get a private throwaway Redis, through the vitest global setup
 *   (`@ahp/embedded-redis/vitest-global-setup`) or `provideRedis({ mode: 'ephemeral' })`.
 *
 * Only Node built-ins are used; the RESP client here is for checks and tests, not for the app.
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

export { RespError, RespParser, RespProtocolError, encodeCommand } from './resp.js';
export type { RespArgument, RespValue } from './resp.js';
export { RespClient, RespConnectionError, parseRedisUrl, redactRedisUrl, withRespClient } from './resp-client.js';
export type { RedisUrlParts, RespClientOptions } from './resp-client.js';

export { CLUSTER_SLOTS, RedisClusterStartError, slotRanges, startRedisCluster } from './redis-cluster.js';
export type { RedisClusterHandle, RedisClusterNode, RedisClusterOptions } from './redis-cluster.js';
