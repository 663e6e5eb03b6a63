/**
 * The one way gateway, workers, tools and tests open a Redis connection: one Redis
 * (`REDIS_URL`) or a Redis Cluster (`REDIS_CLUSTER_NODES`), chosen by configuration.
 */
import { createClient, createCluster, type RedisClientType, type RedisClusterType } from 'redis';
import type { Logger } from './contracts.js';

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

/** One root node of a cluster. */
export interface ClusterNodeAddress {
  host: string;
  port: number;
}

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
   * (rediss = TLS) and credentials are used, for every node; it may then be omitted.
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
 * Parses `REDIS_CLUSTER_NODES`: comma-separated `host:port` (IPv6 as `[::1]:7000`), blanks ignored.
 * @throws RedisTopologyError naming the entry that does not parse, or a duplicate.
 */
export function parseClusterNodes(text: string): ClusterNodeAddress[] {
  const nodes: ClusterNodeAddress[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || !(port >= 1 && port <= 65535)) {
      throw new RedisTopologyError(`REDIS_CLUSTER_NODES: ${JSON.stringify(entry.slice(0, 100))} is not host:port`);
    }
    const host = match[1].replace(/^\[|\]$/g, '');
    if (nodes.some((node) => node.host === host && node.port === port)) throw new RedisTopologyError(`REDIS_CLUSTER_NODES: ${entry} is listed twice`);
    nodes.push({ host, port });
  }
  if (nodes.length > 64) throw new RedisTopologyError('REDIS_CLUSTER_NODES: more than 64 nodes; a few root nodes are enough, the rest is discovered');
  return nodes;
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
 * @throws RedisTopologyError when the configuration names the wrong kind of Redis: a standalone
 *   Redis listed as a cluster node, nodes of different clusters, a cluster with slots no master
 *   serves, or a cluster node given as `REDIS_URL`.
 */
export async function connectRedis(options: ConnectRedisOptions & { url: string; clusterNodes?: undefined }): Promise<RedisSingleClient>;
export async function connectRedis(options: ConnectRedisOptions): Promise<RedisClient>;
export async function connectRedis(options: ConnectRedisOptions): Promise<RedisClient> {
  const { name, logger } = options;
  validateName(name);
  const nodes = typeof options.clusterNodes === 'string' ? parseClusterNodes(options.clusterNodes) : [...(options.clusterNodes ?? [])];
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
 * Adds the listeners every client needs: `error` (required, see {@link connectRedis}) and a
 * `ready` line after reconnects. Used for clients made with `duplicate()`, which do not inherit
 * listeners.
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
