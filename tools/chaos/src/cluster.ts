/**
 * The processes under test, as the chaos loop sees them: which gateways and workers are alive,
 * which deaths the loop caused (and which it did not — a crash is a finding), and how a killed
 * process is replaced, including pointing the gateway's slot at its replacement.
 */
import type { RedisHandle } from '@ahp/embedded-redis';
import { agentEndpoint, type ServiceExit, type ServiceProcess, type Stack } from '@ahp/stack';
import type { GatewayDirectory } from './wire-tap.js';

/** A process that exited without the chaos loop killing it. */
export interface UnexpectedExit {
  readonly service: string;
  readonly code: number | null;
  readonly signal: string | null;
  /** The process's last output lines. */
  readonly lastLines: readonly string[];
}

/** See the module comment. */
export class Cluster {
  readonly stack: Stack;
  readonly redis: RedisHandle;
  readonly directory: GatewayDirectory;
  readonly #dead = new Set<ServiceProcess>();
  readonly #expected = new Set<ServiceProcess>();
  readonly #unexpected: UnexpectedExit[] = [];
  #stopping = false;

  constructor(stack: Stack, redis: RedisHandle, directory: GatewayDirectory) {
    this.stack = stack;
    this.redis = redis;
    this.directory = directory;
    for (const service of [...stack.gateways, ...stack.workers]) this.#follow(service);
  }

  liveGateways(): ServiceProcess[] {
    return this.stack.gateways.filter((gateway) => !this.#dead.has(gateway));
  }

  liveWorkers(): ServiceProcess[] {
    return this.stack.workers.filter((worker) => !this.#dead.has(worker));
  }

  /** Exits the chaos loop did not cause, so far. */
  unexpectedExits(): readonly UnexpectedExit[] {
    return [...this.#unexpected];
  }

  /** The gateway id a gateway announced in its ready line. */
  static gatewayId(gateway: ServiceProcess): string {
    return String(gateway.ready['gateway_id']);
  }

  /** SIGKILLs `service` and resolves once it is gone. */
  async kill(service: ServiceProcess): Promise<ServiceExit> {
    this.#expected.add(service);
    service.kill('SIGKILL');
    return service.exited;
  }

  /** Starts a worker to replace a killed one. */
  async replaceWorker(): Promise<ServiceProcess> {
    return this.#follow(await this.stack.addWorker());
  }

  /** Starts a gateway and gives it the slot of `killed`. */
  async replaceGateway(killed: ServiceProcess): Promise<ServiceProcess> {
    const slot = this.directory.slotOf(agentEndpoint(killed));
    const gateway = this.#follow(await this.stack.addGateway());
    if (slot >= 0) this.directory.replace(slot, agentEndpoint(gateway));
    return gateway;
  }

  /** From now on exits are expected: the run is shutting the stack down. */
  stopping(): void {
    this.#stopping = true;
  }

  #follow(service: ServiceProcess): ServiceProcess {
    void service.exited.then((exit) => {
      this.#dead.add(service);
      if (this.#expected.has(service) || this.#stopping) return;
      this.#unexpected.push({ service: service.name, code: exit.code, signal: exit.signal, lastLines: service.recentLines().slice(-20) });
    });
    return service;
  }
}
