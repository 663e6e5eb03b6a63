/**
 * The AHP processes of one deployment on this machine: gateways and oracle workers as separate
 * Node processes over one Redis. The main job, the system tests, the benchmark and the chaos tool
 * all start the stack through here, so they exercise the same processes with the same settings.
 */
import { join } from 'node:path';
import { findWorkspaceRoot } from '@ahp/embedded-redis';
import { startConsole, type ConsoleProcess } from './console-process.js';
import { spawnService, type ServiceProcess } from './service-process.js';
import { Supervisor, type RestartPolicy, type SupervisedSlot, type SupervisorEvent } from './supervisor.js';

/** Where the built entry points of the apps live, relative to the workspace root. */
export const APP_ENTRIES = {
  gateway: 'apps/gateway/dist/main.js',
  worker: 'apps/oracle-worker/dist/main.js',
} as const;

export interface StackOptions {
  /** One Redis, given to every process as `REDIS_URL`; with `redisClusterNodes`, only its scheme and credentials count. */
  redisUrl?: string;
  /**
   * A Redis Cluster, `host:port,host:port…`, given to every process as `REDIS_CLUSTER_NODES`;
   * absent or `''`, every process uses the one Redis of `redisUrl`, whatever this process's
   * environment says (the test runs of `AHP_TEST_REDIS=cluster` export a node list).
   */
  redisClusterNodes?: string;
  /** The gateways' agent tokens file (digests only). */
  tokensFile: string;
  /**
   * Gateways to start.
   * @defaultValue 1
   */
  gateways?: number;
  /**
   * Oracle worker processes to start.
   * @defaultValue 2
   */
  workers?: number;
  /**
   * Port of the first gateway; the next ones take the following ports. 0 lets each pick a free port.
   * @defaultValue 0
   */
  gatewayPort?: number;
  /**
   * Redis key prefix shared by all processes (tests give each run its own).
   * @defaultValue "ahp"
   */
  keyPrefix?: string;
  /** Environment for every process (on top of this process's environment). */
  env?: Record<string, string>;
  /** Extra environment for gateways only. */
  gatewayEnv?: Record<string, string>;
  /** Extra environment for workers only. */
  workerEnv?: Record<string, string>;
  /** Write each process's output to `<logDir>/<name>.log`. */
  logDir?: string;
  /** Forward output lines (e.g. to print them with a prefix). */
  onLine?: (service: string, line: string, stream: 'stdout' | 'stderr') => void;
  /** Node flags for every process (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** @defaultValue the workspace root */
  workspaceRoot?: string;
  /**
   * Also start the ops console (apps/console, built), serving the first gateway's operator API.
   * @defaultValue not started
   */
  console?: {
    /**
     * Port of the console; 0 picks a free one.
     * @defaultValue 3000
     */
    port?: number;
    /** @defaultValue "0.0.0.0" */
    hostname?: string;
    /** Extra environment for the console process. */
    env?: Record<string, string>;
  };
  /**
   * Restart a gateway, worker or the console when it crashes (see supervisor.ts): the main
   * command turns it on; tests, the benchmark and the chaos tool leave it off, because they kill
   * processes on purpose and a process that came back would change what they measure.
   * A restarted gateway listens on the port it had; every incarnation gets its own gateway or
   * worker id. `onEvent` is told of every crash, restart and give-up; after a `gave-up` the
   * caller decides (the main command stops the stack).
   * @defaultValue off: a process that dies stays dead
   */
  restart?: { policy?: RestartPolicy; onEvent: (event: SupervisorEvent) => void };
}

/** A running stack. */
export interface Stack {
  readonly gateways: ServiceProcess[];
  readonly workers: ServiceProcess[];
  /** The ops console, when {@link StackOptions.console} asked for it. */
  readonly console: ConsoleProcess | undefined;
  /** The agent endpoint of each gateway, in start order. */
  gatewayUrls(): string[];
  /** Starts one more gateway (e.g. to replace a killed one); `port` reuses a stopped gateway's port. */
  addGateway(options?: { port?: number }): Promise<ServiceProcess>;
  /** Starts one more worker. */
  addWorker(): Promise<ServiceProcess>;
  /** Stops everything: the console, then the gateways (they drain agents), then the workers. */
  stop(): Promise<void>;
}

/** Where a gateway or worker serves Prometheus metrics, from its ready line (`port` for gateways, `metrics_port` for workers). */
export function metricsEndpoint(service: ServiceProcess, host = '127.0.0.1'): string | undefined {
  const port = service.ready['metrics_port'] ?? service.ready['port'];
  return typeof port === 'number' ? `http://${host}:${String(port)}/metrics` : undefined;
}

/** The agent WebSocket endpoint of a gateway from its ready line. */
export function agentEndpoint(gateway: ServiceProcess, host = '127.0.0.1'): string {
  return `ws://${host}:${String(gateway.ready['port'])}/v1/agents`;
}

/**
 * The Redis variables of every process. With a cluster, `REDIS_URL` is only what the caller gave
 * (its scheme and credentials, used for every node) and cleared otherwise, so a `REDIS_URL`
 * inherited from this process's environment cannot name a second Redis; with one Redis,
 * `REDIS_CLUSTER_NODES` is cleared likewise. An empty value counts as unset for the gateway and the worker.
 * @throws TypeError when neither is given.
 */
export function redisEnvironment(options: Pick<StackOptions, 'redisUrl' | 'redisClusterNodes'>): { REDIS_URL: string; REDIS_CLUSTER_NODES: string } {
  const url = options.redisUrl ?? '';
  const nodes = options.redisClusterNodes ?? '';
  if (url === '' && nodes === '') throw new TypeError('startStack needs redisUrl (one Redis) or redisClusterNodes (a Redis Cluster)');
  return { REDIS_URL: url, REDIS_CLUSTER_NODES: nodes };
}

/** Starts the gateways and workers in parallel and resolves when all are ready. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const root = options.workspaceRoot ?? findWorkspaceRoot();
  const prefix = options.keyPrefix ?? 'ahp';
  const common = { ...redisEnvironment(options), AHP_KEY_PREFIX: prefix, ...options.env };
  const gateways: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];
  let gatewayCount = 0;
  let workerCount = 0;

  const forward = options.onLine;
  const launch = (name: string, entry: string, env: Record<string, string>) =>
    spawnService({
      name,
      entry: join(root, entry),
      cwd: root,
      env: { ...common, ...env },
      ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
      ...(options.logDir ? { logFile: join(options.logDir, `${name}.log`) } : {}),
      ...(forward ? { onLine: (line: string, stream: 'stdout' | 'stderr') => forward(name, line, stream) } : {}),
    });

  const supervisor = options.restart ? new Supervisor(options.restart.policy ?? {}, options.restart.onEvent) : undefined;
  /** Puts `service` under supervision (when restarts are on); each incarnation replaces the last in `list`. */
  const supervise = <S extends ServiceProcess>(list: S[], service: S, restart: (previous: S, incarnation: number) => Promise<S>) => {
    if (!supervisor) return;
    let incarnation = 1;
    const slot: SupervisedSlot<S> = {
      name: service.name,
      service,
      restart: (previous) => {
        incarnation += 1;
        return restart(previous, incarnation);
      },
      replace: (previous, next) => {
        const at = list.indexOf(previous);
        if (at >= 0) list[at] = next;
      },
    };
    supervisor.watch(slot);
  };

  const spawnGateway = (index: number, port: number, incarnation: number) =>
    launch(`gateway-${index}`, APP_ENTRIES.gateway, {
      PORT: String(port),
      // A new id per incarnation: what Redis holds about the dead one (presence, routes) must not look alive.
      AHP_GATEWAY_ID: `gw-${index}-${process.pid}${incarnation > 1 ? `-${incarnation}` : ''}`,
      AHP_AGENT_TOKENS_FILE: options.tokensFile,
      ...options.gatewayEnv,
    });
  const spawnWorker = (index: number, incarnation: number) =>
    launch(`worker-${index}`, APP_ENTRIES.worker, {
      AHP_WORKER_ID: `worker-${index}-${process.pid}${incarnation > 1 ? `-${incarnation}` : ''}`,
      // Several workers share this machine: each takes a free metrics port and reports it in its ready line (metrics_port).
      AHP_WORKER_METRICS_PORT: '0',
      ...options.workerEnv,
    });

  const addGateway = async (overrides: { port?: number } = {}) => {
    gatewayCount += 1;
    const index = gatewayCount;
    const port = overrides.port ?? (options.gatewayPort ? options.gatewayPort + index - 1 : 0);
    const gateway = await spawnGateway(index, port, 1);
    gateways.push(gateway);
    // Back on the port it had, so the endpoints printed and configured stay valid.
    supervise(gateways, gateway, (previous, incarnation) => spawnGateway(index, Number(previous.ready['port'] ?? port), incarnation));
    return gateway;
  };
  const addWorker = async () => {
    workerCount += 1;
    const index = workerCount;
    const worker = await spawnWorker(index, 1);
    workers.push(worker);
    supervise(workers, worker, (_previous, incarnation) => spawnWorker(index, incarnation));
    return worker;
  };

  let consoleProcess: ConsoleProcess | undefined;
  const stack: Stack = {
    gateways,
    workers,
    get console() {
      return consoleProcess;
    },
    gatewayUrls: () => gateways.map((gateway) => agentEndpoint(gateway)),
    addGateway,
    addWorker,
    stop: async () => {
      // No restarts from here on; one already starting is waited for, and stopped with the rest.
      await supervisor?.stop();
      // The console first: it holds live-feed streams open on the gateways.
      await consoleProcess?.stop();
      await Promise.all(gateways.map((gateway) => gateway.stop()));
      await Promise.all(workers.map((worker) => worker.stop()));
    },
  };
  try {
    await Promise.all([
      ...Array.from({ length: options.gateways ?? 1 }, () => addGateway()),
      ...Array.from({ length: options.workers ?? 2 }, () => addWorker()),
    ]);
    const [first] = gateways;
    if (options.console && first) {
      const consoleOptions = options.console;
      const gatewayUrl = `http://127.0.0.1:${String(first.ready['port'])}`;
      const launchConsole = (port: number | undefined) =>
        startConsole({
          workspaceRoot: root,
          gatewayUrl,
          ...(port === undefined ? {} : { port }),
          ...(consoleOptions.hostname === undefined ? {} : { hostname: consoleOptions.hostname }),
          ...(consoleOptions.env ? { env: consoleOptions.env } : {}),
          ...(options.logDir ? { logFile: join(options.logDir, 'console.log') } : {}),
          ...(forward ? { onLine: (line: string, stream: 'stdout' | 'stderr') => forward('console', line, stream) } : {}),
        });
      consoleProcess = await launchConsole(consoleOptions.port);
      const consoles = [consoleProcess];
      supervise(consoles, consoleProcess, async (previous) => {
        const next = await launchConsole(Number(previous.ready['port'] ?? consoleOptions.port));
        consoleProcess = next;
        return next;
      });
    }
  } catch (error) {
    await stack.stop();
    throw error;
  }
  return stack;
}
