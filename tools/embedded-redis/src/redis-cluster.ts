/**
 * A real Redis Cluster made of plain `redis-server --cluster-enabled yes` children, for tests, the
 * bench and `npm start -- --redis-cluster N`.
 *
 * The cluster is built with the cluster commands themselves (no redis-cli, no Ruby): every node
 * is told to `CLUSTER MEET` the first one, each master takes an even range of the 16384 slots with
 * `CLUSTER ADDSLOTSRANGE`, each replica `CLUSTER REPLICATE`s its master once the master's id has
 * reached it through the gossip, and the start resolves only when every node answers
 * `cluster_state:ok` and sees every node. The data lives in one temp folder (a subfolder per node),
 * removed on stop: a cluster here is always throwaway.
 */
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { registerCleanup } from './exit-cleanup.js';
import { ensureRedisServer } from './find-redis-server.js';
import { findFreePort } from './free-port.js';
import { REDIS_HOST, LOG_FILE_NAME } from './provide-redis.js';
import { RedisPortInUseError, RedisStartError, startRedisServer, type RedisProcess } from './redis-process.js';
import { withRedisConnection, type RedisConnection } from './redis-connection.js';

/** Number of hash slots of every Redis Cluster. */
export const CLUSTER_SLOTS = 16384;

/** Options of {@link startRedisCluster}. */
export interface RedisClusterOptions {
  /**
   * Number of masters (each owns an even share of the slots). Redis needs at least 3 for a
   * cluster that survives losing one of them (a majority of masters must agree on a failover).
   * @defaultValue `3`
   */
  masters?: number;
  /**
   * Replicas per master (0 or more). A replica is promoted when its master is unreachable for
   * `nodeTimeoutMs`.
   * @defaultValue `0`
   */
  replicasPerMaster?: number;
  /**
   * `cluster-node-timeout`: how long a node may be unreachable before it is considered failed
   * (and a replica takes over). Small in tests so a failover finishes in a few seconds.
   * @defaultValue `2000`
   */
  nodeTimeoutMs?: number;
  /**
   * How long the whole start may take (every node ready, slots assigned, cluster_state:ok).
   * @defaultValue `30000`
   */
  readyTimeoutMs?: number;
  /** The redis-server binary; looked up (and installed if root) like for a single Redis when missing. */
  redisServerBin?: string;
  /** Extra arguments for every node, appended after ours. */
  extraArgs?: readonly string[];
  /** Progress lines. @defaultValue silent */
  log?: (line: string) => void;
  /** Stop the nodes when this process ends. @defaultValue `true` */
  cleanupOnExit?: boolean;
}

/** One node of a running cluster. */
export interface RedisClusterNode {
  readonly host: string;
  readonly port: number;
  /** The node's cluster id (40 hex characters). */
  readonly id: string;
  /** The role it was created with; after a failover `roles()` tells the current one. */
  readonly createdAs: 'master' | 'replica';
  readonly pid: number;
  readonly dataDir: string;
  /** Whether the process has exited (stopped or killed). */
  readonly exited: boolean;
}

/** A running cluster. */
export interface RedisClusterHandle {
  readonly nodes: readonly RedisClusterNode[];
  /** `host:port,host:port…` of every node: the value of `REDIS_CLUSTER_NODES`. */
  readonly nodeList: string;
  /** The nodes created as masters, in slot order. */
  readonly masters: readonly RedisClusterNode[];
  /** Sends `signal` to one node (SIGKILL for a failover test); resolves when it has exited. */
  kill(port: number, signal?: NodeJS.Signals): Promise<void>;
  /** Each live node's current role, from its own `ROLE` (a promoted replica says `master`). */
  roles(): Promise<Map<number, 'master' | 'replica'>>;
  /** Resolves once every live node answers `cluster_state:ok` (after a failover, for instance). */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  /** Stops every node (SIGTERM, then SIGKILL) and removes the data folder. Idempotent. */
  stop(): Promise<void>;
}

/** The cluster could not be created; the message names the step and the node. */
export class RedisClusterStartError extends Error {
  readonly code = 'REDIS_CLUSTER_START_FAILED';

  constructor(message: string) {
    super(message);
    this.name = 'RedisClusterStartError';
  }
}

interface LiveNode {
  proc: RedisProcess;
  port: number;
  busPort: number;
  id: string;
  createdAs: 'master' | 'replica';
  dataDir: string;
}

/** The slot ranges `[from, to]` of `masters` masters, as even as integer division allows. */
export function slotRanges(masters: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let index = 0; index < masters; index++) {
    const from = Math.floor((index * CLUSTER_SLOTS) / masters);
    const to = Math.floor(((index + 1) * CLUSTER_SLOTS) / masters) - 1;
    ranges.push([from, to]);
  }
  return ranges;
}

/** Runs `fn` on a fresh connection to one node (a plain client: each command is meant for that very node). */
function onNode<T>(port: number, fn: (client: RedisConnection) => Promise<T>): Promise<T> {
  return withRedisConnection({ host: REDIS_HOST, port, connectTimeoutMs: 2000, idleTimeoutMs: 5000 }, fn);
}

/** Starts one cluster-enabled node on a free port (with a free bus port: port + 10000 may not exist). */
async function startNode(binary: string, dataDir: string, options: RedisClusterOptions): Promise<{ proc: RedisProcess; busPort: number }> {
  await mkdir(dataDir, { recursive: true });
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await findFreePort(REDIS_HOST);
    const busPort = await findFreePort(REDIS_HOST);
    try {
      const proc = await startRedisServer({
        binary,
        host: REDIS_HOST,
        port,
        dataDir,
        logFile: path.join(dataDir, LOG_FILE_NAME),
        detached: false,
        readyTimeoutMs: options.readyTimeoutMs ?? 30_000,
        extraArgs: [
          '--cluster-enabled', 'yes',
          '--cluster-config-file', 'nodes.conf',
          '--cluster-port', String(busPort),
          '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 2000),
          // A replica may be promoted however long it was cut off: in tests the point is the failover.
          '--cluster-replica-validity-factor', '0',
          ...(options.extraArgs ?? []),
        ],
      });
      return { proc, busPort };
    } catch (error) {
      if (!(error instanceof RedisPortInUseError)) throw error;
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new RedisStartError('no free port for a cluster node', '');
}

/** Polls `check` every 100 ms until it is true, or throws `what` after the deadline. */
async function waitFor(what: string, deadline: number, check: () => Promise<boolean | string>): Promise<void> {
  let last: string | undefined;
  for (;;) {
    try {
      const outcome = await check();
      if (outcome === true) return;
      if (typeof outcome === 'string') last = outcome;
    } catch {
      // Not yet (a node still busy starting, gossip not settled): try again.
    }
    if (Date.now() >= deadline) throw new RedisClusterStartError(`redis cluster: timed out waiting for ${what}${last === undefined ? '' : ` (last seen: ${last})`}`);
    await sleep(100);
  }
}

/** `CLUSTER INFO` of one node as a map. */
async function clusterInfo(port: number): Promise<Map<string, string>> {
  const text = await onNode(port, (client) => client.clusterInfo());
  return new Map(
    text
      .split(/\r?\n/)
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

/**
 * Starts a Redis Cluster of `masters` masters and `replicasPerMaster` replicas each, and resolves
 * once every node says `cluster_state:ok` and knows all the others.
 *
 * @throws RedisClusterStartError (or RedisStartError for a node that would not start); every node
 *   started so far is stopped first.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisClusterHandle> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 0;
  if (!Number.isInteger(masters) || masters < 1 || masters > 64) throw new RangeError(`masters must be a whole number from 1 to 64, not ${masters}`);
  if (!Number.isInteger(replicas) || replicas < 0 || replicas > 4) throw new RangeError(`replicasPerMaster must be a whole number from 0 to 4, not ${replicas}`);
  const log = options.log ?? (() => undefined);
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  const binary = options.redisServerBin ?? (await ensureRedisServer({ install: true, log }));
  const root = await mkdtemp(path.join(os.tmpdir(), 'ahp-redis-cluster-'));
  const nodes: LiveNode[] = [];
  let stopped = false;
  let unregister: (() => void) | undefined;

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    unregister?.();
    await Promise.all(nodes.map((node) => node.proc.stop(5_000)));
    await rm(root, { recursive: true, force: true });
  };

  try {
    if (options.cleanupOnExit ?? true) {
      unregister = registerCleanup({
        onExit: () => {
          for (const node of nodes) node.proc.signal('SIGKILL');
          rmSync(root, { recursive: true, force: true });
        },
        onSignal: stop,
      });
    }
    const total = masters * (1 + replicas);
    for (let index = 0; index < total; index++) {
      const dataDir = path.join(root, `node-${index}`);
      const { proc, busPort } = await startNode(binary, dataDir, options);
      const id = await onNode(proc.port, (client) => client.clusterMyId());
      nodes.push({ proc, port: proc.port, busPort, id, createdAs: index < masters ? 'master' : 'replica', dataDir });
    }
    log(`redis cluster: ${total} nodes on ports ${nodes.map((node) => node.port).join(', ')}; joining them`);

    // Distinct config epochs up front, as redis-cli does, so the masters need not resolve epoch collisions first.
    for (const [index, node] of nodes.entries()) await onNode(node.port, (client) => client.clusterSetConfigEpoch(index + 1));
    const masterNodes = nodes.slice(0, masters);
    const [first] = nodes;
    if (first) {
      // node-redis's clusterMeet has no bus-port argument, and ours is not port + 10000.
      for (const node of nodes.slice(1)) await onNode(node.port, (client) => client.sendCommand(['CLUSTER', 'MEET', REDIS_HOST, String(first.port), String(first.busPort)]));
    }
    for (const [index, [from, to]] of slotRanges(masters).entries()) {
      const owner = masterNodes[index];
      if (owner) await onNode(owner.port, (client) => client.clusterAddSlotsRange({ start: from, end: to }));
    }
    // A replica can only follow a master it already knows, so wait for the gossip to reach it.
    for (const [index, node] of nodes.slice(masters).entries()) {
      const master = masterNodes[index % masters];
      if (!master) continue;
      await waitFor(`node ${node.port} to learn of master ${master.port}`, deadline, async () =>
        (await onNode(node.port, (client) => client.clusterNodes())).includes(master.id),
      );
      await onNode(node.port, (client) => client.clusterReplicate(master.id));
    }
    for (const node of nodes) {
      await waitFor(`cluster_state:ok on node ${node.port}`, deadline, async () => {
        const info = await clusterInfo(node.port);
        const ok = info.get('cluster_state') === 'ok' && info.get('cluster_known_nodes') === String(total) && info.get('cluster_slots_assigned') === String(CLUSTER_SLOTS);
        return ok || `state ${info.get('cluster_state')}, ${info.get('cluster_known_nodes')} nodes known, ${info.get('cluster_slots_assigned')} slots assigned`;
      });
    }
    // Replicas answer only once their first sync is done; a test that kills a master right away needs it.
    for (const node of nodes.filter((candidate) => candidate.createdAs === 'replica')) {
      await waitFor(`replica ${node.port} to sync`, deadline, async () => /master_link_status:up/.test(await onNode(node.port, (client) => client.info('replication'))));
    }
    log(`redis cluster ready: ${masters} masters, ${replicas} replica(s) each`);
  } catch (error) {
    await stop();
    throw error;
  }

  const view = (node: LiveNode): RedisClusterNode => ({
    host: REDIS_HOST,
    port: node.port,
    id: node.id,
    createdAs: node.createdAs,
    pid: node.proc.pid,
    dataDir: node.dataDir,
    get exited() {
      return node.proc.exited;
    },
  });

  const handle: RedisClusterHandle = {
    nodes: nodes.map(view),
    masters: nodes.filter((node) => node.createdAs === 'master').map(view),
    nodeList: nodes.map((node) => `${REDIS_HOST}:${node.port}`).join(','),
    async kill(port, signal = 'SIGKILL') {
      const node = nodes.find((candidate) => candidate.port === port);
      if (!node) throw new Error(`no node of this cluster listens on ${port}`);
      node.proc.signal(signal);
      await node.proc.waitForExit(10_000);
    },
    async roles() {
      const roles = new Map<number, 'master' | 'replica'>();
      for (const node of nodes.filter((candidate) => !candidate.proc.exited)) {
        const reply = await onNode(node.port, (client) => client.role());
        roles.set(node.port, reply?.role === 'master' ? 'master' : 'replica');
      }
      return roles;
    },
    async waitUntilOk(timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (const node of nodes.filter((candidate) => !candidate.proc.exited)) {
        await waitFor(`cluster_state:ok on node ${node.port}`, until, async () => (await clusterInfo(node.port)).get('cluster_state') === 'ok');
      }
    },
    stop,
  };
  return handle;
}
