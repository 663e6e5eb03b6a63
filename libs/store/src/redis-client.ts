/**
 * The one way gateway, workers, tools and tests open a Redis connection: one Redis
 * (`REDIS_URL`) or a Redis Cluster (`REDIS_CLUSTER_NODES`), chosen by configuration.
 */
import { createClient, createCluster, type RedisClientType, type RedisClusterType } from 'redis';
import { RedisClusterNodesSchema, type RedisNodeAddress } from '@ahp/protocol';
import type { Logger } from '@ahp/protocol';

/** A node-redis client of one Redis. */
export type RedisSingleClient = RedisClientType;

/** A node-redis cluster client: routes each command to the master of its key's slot. */
export type RedisClusterClient = RedisClusterType;

/**
 * What every store takes: either client kind. Both expose the same command methods; a command,
 * script or MULTI is routed by its first key under Cluster, so every store call keeps its keys in
 * one hash tag (see the notes of keys.ts).
 */
export type RedisClient = RedisSingleClient | RedisClusterClient;

/** One root node of a cluster (as {@link parseClusterNodes} reads it). */
export type ClusterNodeAddress = RedisNodeAddress;

/** The Redis configuration is wrong in a way no retry fixes; the message names the problem and what to set. */
export class RedisTopologyError extends Error {
  readonly code = 'E_REDIS_TOPOLOGY';

  constructor(message: string) {
    super(message);
    this.name = 'RedisTopologyError';
  }
}

/** Options of {@link connectRedis}. */
export interface ConnectRedisOptions {
  /**
   * `redis[s]://[[user][:password]@]host[:port][/db]`. With `clusterNodes`, only its scheme
   * (rediss = TLS) and credentials are used, for every node; it may then be omitted, and when
   * given its host must be one of the nodes (and its database 0), so it cannot name a second Redis.
   */
  url?: string | undefined;
  /**
   * Cluster mode: `host:port,host:port…` (the value of `REDIS_CLUSTER_NODES`) or the parsed
   * list. Any reachable node is enough to discover the rest; list several. Empty or absent: one Redis at `url`.
   */
  clusterNodes?: string | readonly ClusterNodeAddress[] | undefined;
  /** Connection name, sent with `CLIENT SETNAME` on every (re)connect, so `CLIENT LIST` shows who is who. Letters, digits and `._:-`. */
  name: string;
  logger: Logger;
  /**
   * Delay before the first reconnect attempt; each later attempt doubles it, up to
   * `maxReconnectDelayMs`, with up to 20 % random jitter so that many processes do not reconnect in
   * lockstep after a Redis restart.
   * @defaultValue `50`
   */
  minReconnectDelayMs?: number;
  /**
   * Upper bound of the reconnect delay. Reconnecting never gives up: a gateway or worker without
   * Redis cannot do anything useful, and commands issued meanwhile wait in the offline queue.
   * @defaultValue `5000`
   */
  maxReconnectDelayMs?: number;
  /**
   * How long one TCP connect may take before it counts as failed.
   * @defaultValue `5000`
   */
  connectTimeoutMs?: number;
}

/**
 * The reconnect delay for attempt `retries` (0-based): `min * 2^retries`, capped at `max`, plus
 * up to 20 % jitter. Exported for tests and for callers that reconnect something else the same way.
 */
export function reconnectDelay(retries: number, minMs: number, maxMs: number, random: () => number = Math.random): number {
  const base = Math.min(minMs * 2 ** Math.min(retries, 30), maxMs);
  return Math.round(base + base * 0.2 * random());
}

/**
 * Parses `REDIS_CLUSTER_NODES` with the protocol's schema: comma-separated `host:port` (IPv6 as
 * `[::1]:7000`), blanks ignored, at least one node.
 * @throws RedisTopologyError naming the entry that does not parse, or a duplicate.
 */
export function parseClusterNodes(text: string): ClusterNodeAddress[] {
  const parsed = RedisClusterNodesSchema.safeParse(text);
  if (!parsed.success) throw new RedisTopologyError(`REDIS_CLUSTER_NODES: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  return parsed.data;
}

/**
 * With a node list, `REDIS_URL` may still be given for its scheme and credentials; it must then
 * not name a second Redis. Its host:port, when it has one, must be one of the listed nodes (a
 * leftover URL of another Redis is refused, not silently ignored), and it may select no database
 * but 0 (a cluster has only that one).
 */
function checkUrlAgainstNodes(url: URL, nodes: readonly ClusterNodeAddress[]): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port === '' ? 6379 : Number(url.port);
  if (host !== '' && !nodes.some((node) => node.host === host && node.port === port)) {
    throw new RedisTopologyError(
      `REDIS_URL names ${describe({ host, port })} and REDIS_CLUSTER_NODES lists ${nodes.map(describe).join(',')}: two different Redis are configured. ` +
        'With REDIS_CLUSTER_NODES, REDIS_URL only gives the scheme and credentials: point it at one of the listed nodes, or leave it out',
    );
  }
  const database = url.pathname.replace(/^\//, '');
  if (database !== '' && database !== '0') {
    throw new RedisTopologyError(`REDIS_URL selects database ${database}, but a Redis Cluster has only database 0`);
  }
}

/** The cluster root nodes of a client made by {@link connectRedis}, for the BullMQ connection (see bull-connection.ts). */
const clusterRootNodes = new WeakMap<object, { nodes: readonly ClusterNodeAddress[]; url: URL | undefined; name: string }>();

/** Whether the client is a cluster client. */
export function isClusterClient(client: RedisClient): client is RedisClusterClient {
  return clusterRootNodes.has(client) || 'masters' in client;
}

/** The root nodes, credentials and name a cluster client was made with. */
export function clusterRootNodesOf(client: RedisClusterClient): { nodes: readonly ClusterNodeAddress[]; url: URL | undefined; name: string } | undefined {
  return clusterRootNodes.get(client);
}

function validateName(name: string): void {
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(name)) {
    throw new TypeError(`Redis connection name ${JSON.stringify(name)} must be 1-128 of letters, digits and . _ : -`);
  }
}

/**
 * Creates a node-redis client and connects it: a cluster client when `clusterNodes` is given
 * (after checking the nodes form one healthy cluster), otherwise a client of the Redis at `url`.
 *
 * The client gets an `error` listener that logs: node-redis emits `error` for every failed
 * connection attempt, and an `error` event without a listener would crash the process. Reconnects
 * follow {@link reconnectDelay} forever; `ready` after a reconnect is logged at info level.
 *
 * Resolves once connected. While Redis is unreachable it keeps retrying (each attempt logged),
 * also on the first connect, so a process started before its Redis simply waits for it; race it
 * with a timeout where start-up must fail fast.
 *
 * @throws TypeError for a name that `CLIENT SETNAME` would refuse.
 * @throws RedisTopologyError when the configuration names the wrong kind of Redis: a malformed
 *   node list, a standalone Redis listed as a cluster node, nodes of different clusters, a cluster
 *   with slots no master serves, a cluster node given as `REDIS_URL`, or a `REDIS_URL` naming a
 *   Redis that is not one of the listed cluster nodes (or a database other than 0) beside them.
 */
export async function connectRedis(options: ConnectRedisOptions & { url: string; clusterNodes?: undefined }): Promise<RedisSingleClient>;
export async function connectRedis(options: ConnectRedisOptions): Promise<RedisClient>;
export async function connectRedis(options: ConnectRedisOptions): Promise<RedisClient> {
  const { name, logger } = options;
  validateName(name);
  // A blank list (an empty REDIS_CLUSTER_NODES) means one Redis, as an unset one does.
  const nodes =
    typeof options.clusterNodes === 'string'
      ? options.clusterNodes.trim() === ''
        ? []
        : parseClusterNodes(options.clusterNodes)
      : [...(options.clusterNodes ?? [])];
  if (nodes.length > 0) return connectCluster(options, nodes);
  if (options.url === undefined || options.url.trim() === '') throw new RedisTopologyError('no Redis configured: set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a cluster)');

  const minDelay = options.minReconnectDelayMs ?? 50;
  const maxDelay = options.maxReconnectDelayMs ?? 5000;
  const client: RedisSingleClient = createClient({
    url: options.url,
    name,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5000,
      reconnectStrategy: (retries: number, cause: Error) => {
        const delay = reconnectDelay(retries, minDelay, maxDelay);
        logger.warn({ redisClient: name, retries, delayMs: delay, error: cause.message }, 'redis connection lost; reconnecting');
        return delay;
      },
    },
  });
  attachLogging(client, name, logger);
  await client.connect();
  // A cluster node answers only for its own slots (MOVED for the rest): refuse it as "one Redis".
  const info = await client.info('cluster');
  if (/^cluster_enabled:1\r?$/m.test(info)) {
    client.destroy();
    throw new RedisTopologyError(
      `REDIS_URL points at a Redis Cluster node (cluster_enabled:1); list the cluster's nodes in REDIS_CLUSTER_NODES=host:port,… instead`,
    );
  }
  return client;
}

/** What one root node said about itself. */
interface RootNodeReport {
  node: ClusterNodeAddress;
  id: string;
  knownIds: Set<string>;
  state: string;
  slotsAssigned: number;
}

function describe(node: ClusterNodeAddress): string {
  return node.host.includes(':') ? `[${node.host}]:${node.port}` : `${node.host}:${node.port}`;
}

/** Asks one root node who it is; undefined when unreachable. */
async function probeRootNode(node: ClusterNodeAddress, url: URL | undefined, timeoutMs: number): Promise<RootNodeReport | undefined> {
  const client = createClient({
    socket: { host: node.host, port: node.port, connectTimeout: timeoutMs, reconnectStrategy: false, ...(url?.protocol === 'rediss:' ? { tls: true as const } : {}) },
    ...(url?.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url?.password ? { password: decodeURIComponent(url.password) } : {}),
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch {
    return undefined;
  }
  try {
    const enabled = await client.info('cluster');
    if (!/^cluster_enabled:1\r?$/m.test(enabled)) {
      throw new RedisTopologyError(
        `REDIS_CLUSTER_NODES lists ${describe(node)}, which is a standalone Redis (cluster support disabled): set REDIS_URL=redis://${describe(node)} for one Redis, or list the nodes of a Redis Cluster`,
      );
    }
    const id = String(await client.sendCommand(['CLUSTER', 'MYID']));
    const nodesText = String(await client.sendCommand(['CLUSTER', 'NODES']));
    const infoText = String(await client.sendCommand(['CLUSTER', 'INFO']));
    const field = (key: string): string => new RegExp(`^${key}:(\\S+)\\r?$`, 'm').exec(infoText)?.[1] ?? '';
    const knownIds = new Set(nodesText.split('\n').map((line) => line.split(' ')[0] ?? '').filter((value) => value !== ''));
    return { node, id, knownIds, state: field('cluster_state'), slotsAssigned: Number(field('cluster_slots_assigned')) };
  } finally {
    client.destroy();
  }
}

/**
 * Checks the root nodes before the cluster client starts (its own errors for these cases are obscure):
 * every reachable root node must be a cluster node, all of one cluster, with all 16384 slots assigned.
 * Waits (logging) while no root node answers or the cluster is still converging (state `fail` with
 * every slot assigned: a failover in progress).
 */
async function checkClusterRootNodes(nodes: readonly ClusterNodeAddress[], url: URL | undefined, options: ConnectRedisOptions): Promise<void> {
  const maxDelay = options.maxReconnectDelayMs ?? 5000;
  for (let attempt = 0; ; attempt++) {
    const reports = (await Promise.all(nodes.map((node) => probeRootNode(node, url, options.connectTimeoutMs ?? 5000)))).filter(
      (report): report is RootNodeReport => report !== undefined,
    );
    const [first, ...others] = reports;
    let waitingFor: string;
    if (first) {
      for (const other of others) {
        if (!first.knownIds.has(other.id)) {
          throw new RedisTopologyError(
            `REDIS_CLUSTER_NODES mixes clusters: ${describe(other.node)} is not a member of the cluster ${describe(first.node)} belongs to`,
          );
        }
      }
      const uncovered = reports.find((report) => report.slotsAssigned < 16384);
      if (uncovered) {
        throw new RedisTopologyError(
          `the Redis Cluster of ${describe(uncovered.node)} has uncovered slots: ${uncovered.slotsAssigned} of 16384 assigned (assign the rest, e.g. redis-cli --cluster fix ${describe(uncovered.node)})`,
        );
      }
      if (reports.every((report) => report.state === 'ok')) return;
      waitingFor = `cluster_state:${reports.find((report) => report.state !== 'ok')?.state ?? '?'}`;
    } else {
      waitingFor = 'no node of REDIS_CLUSTER_NODES answers';
    }
    const delay = reconnectDelay(attempt, options.minReconnectDelayMs ?? 50, maxDelay);
    options.logger.warn({ redisClient: options.name, retries: attempt, delayMs: delay, error: waitingFor }, 'redis cluster not ready; retrying');
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

async function connectCluster(options: ConnectRedisOptions, nodes: readonly ClusterNodeAddress[]): Promise<RedisClusterClient> {
  const { name, logger } = options;
  let url: URL | undefined;
  if (options.url !== undefined && options.url.trim() !== '') {
    try {
      url = new URL(options.url);
    } catch {
      throw new RedisTopologyError('REDIS_URL is not a URL (with REDIS_CLUSTER_NODES only its scheme and credentials are used)');
    }
    checkUrlAgainstNodes(url, nodes);
  }
  await checkClusterRootNodes(nodes, url, options);
  const minDelay = options.minReconnectDelayMs ?? 50;
  const maxDelay = options.maxReconnectDelayMs ?? 5000;
  const scheme = url?.protocol === 'rediss:' ? 'rediss' : 'redis';
  const cluster: RedisClusterClient = createCluster({
    rootNodes: nodes.map((node) => ({ url: `${scheme}://${describe(node)}` })),
    defaults: {
      name,
      ...(url?.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url?.password ? { password: decodeURIComponent(url.password) } : {}),
      socket: {
        connectTimeout: options.connectTimeoutMs ?? 5000,
        ...(scheme === 'rediss' ? { tls: true as const } : {}),
        reconnectStrategy: (retries: number, cause: Error) => {
          const delay = reconnectDelay(retries, minDelay, maxDelay);
          logger.warn({ redisClient: name, retries, delayMs: delay, error: cause.message }, 'redis cluster node connection lost; reconnecting');
          return delay;
        },
      },
    },
    // A failover moves slots: follow MOVED/ASK a few more times than the default while it settles.
    maxCommandRedirections: 32,
    // A SIGKILLed master answers no MOVED: node-redis learns of its replica's promotion only from a
    // topology refresh, which it schedules once a node has been reconnecting this long (default 5 s,
    // on top of the cluster's own cluster-node-timeout). Every second keeps the hooks whose slots
    // moved waiting about as long as the failover itself; a refresh is one CLUSTER SLOTS call.
    topologyRefreshOnReconnectionAttemptStrategy: 1000,
  });
  clusterRootNodes.set(cluster, { nodes, url, name });
  attachLogging(cluster, name, logger);
  await cluster.connect();
  return cluster;
}

/**
 * How long a command may wait in node-redis's offline queue while its client is not connected
 * (Redis down, restarting, or the connection being re-established) before it fails with
 * node-redis's `TimeoutError`, which `isStoreUnavailable` (store-unavailable.ts) reads as "store unavailable".
 */
export const OFFLINE_COMMAND_TIMEOUT_MS = 5000;

/** The part of a node-redis client's internals {@link boundOfflineCommands} replaces. */
interface CommandOptionsHolder {
  _commandOptions?: Record<string, unknown>;
}

/**
 * Gives a one-Redis client's commands the {@link OFFLINE_COMMAND_TIMEOUT_MS} bound only while
 * the client is not ready, instead of node-redis's default of a timer on every command.
 *
 * WHY: node-redis 6 arms `AbortSignal.timeout(5000)` for each command (`commandOptions.timeout`)
 * and drops it as soon as the command is written to the socket, so it only ever bounds the wait
 * in the offline queue during an outage; yet it cost 7–10 % of the gateway's CPU and 8–9 % of a
 * worker's (a timer, an AbortSignal and, five seconds later, a `DOMException` with a stack per
 * command; see BENCHMARKS.md, "node-redis' per-command timeout"). node-redis reads the client's
 * command options on every `sendCommand` (spreading them into the command's own), so a getter
 * that answers "5000" while the socket is not ready and nothing while it is keeps the outage
 * behaviour exactly (each command queued while disconnected fails 5 s later unless the client
 * reconnects first) and leaves the connected path without a timer. A command written to a
 * connection that then breaks is failed by node-redis itself when the socket closes.
 *
 * Not for cluster clients: their per-node clients are made inside node-redis; they keep the
 * default timer.
 * @throws Error when node-redis no longer keeps its options where this expects them (a major
 *   upgrade): better to fail at start than to lose the outage bound silently.
 */
export function boundOfflineCommands(client: RedisSingleClient): void {
  if (bounded.has(client)) return;
  const holder = client as unknown as CommandOptionsHolder;
  const current = holder._commandOptions;
  if (current === undefined || typeof current !== 'object' || !('timeout' in current)) {
    throw new Error('node-redis keeps its command options elsewhere than _commandOptions.timeout; revisit boundOfflineCommands');
  }
  const options: Record<string, unknown> = { ...current };
  delete options['timeout'];
  Object.defineProperty(options, 'timeout', {
    enumerable: true,
    get: () => (client.isReady ? undefined : OFFLINE_COMMAND_TIMEOUT_MS),
  });
  holder._commandOptions = options;
  bounded.add(client);
  // A duplicate copies the options' values, not the getter: it would have no bound at all. BullMQ
  // duplicates the client it is given for its blocking connections, so every duplicate gets one.
  const duplicate = client.duplicate.bind(client);
  client.duplicate = ((...args: Parameters<RedisSingleClient['duplicate']>) => {
    const copy = duplicate(...args) as unknown as RedisSingleClient;
    boundOfflineCommands(copy);
    return copy;
  }) as RedisSingleClient['duplicate'];
}

/** Clients {@link boundOfflineCommands} has already changed. */
const bounded = new WeakSet<RedisSingleClient>();

/**
 * Adds what every client needs: the listeners, `error` (required, see {@link connectRedis}) and
 * a `ready` line after reconnects, and for one-Redis clients {@link boundOfflineCommands}. Used
 * for clients made with `duplicate()` too, which do not inherit listeners.
 */
export function attachLogging(client: RedisClient, name: string, logger: Logger): void {
  let everReady = false;
  const onError = (error: unknown): void => {
    logger.warn({ redisClient: name, error: error instanceof Error ? error.message : String(error) }, 'redis client error');
  };
  client.on('error', onError);
  if (isClusterClient(client)) {
    client.on('node-error', onError);
    return;
  }
  boundOfflineCommands(client);
  client.on('ready', () => {
    if (everReady) logger.info({ redisClient: name }, 'redis connection re-established');
    everReady = true;
  });
}

/**
 * Every key matching `match` (a SCAN pattern), from one Redis or from every master of a cluster
 * (SCAN sees one node's keys only). For admin tools and tests: SCAN walks the whole keyspace.
 */
export async function scanKeys(redis: RedisClient, match: string, count = 500): Promise<string[]> {
  const clients: RedisSingleClient[] = isClusterClient(redis) ? await Promise.all(redis.masters.map((master) => redis.nodeClient(master))) : [redis];
  const keys: string[] = [];
  for (const client of clients) {
    for await (const batch of client.scanIterator({ MATCH: match, COUNT: count })) keys.push(...batch);
  }
  return keys;
}
