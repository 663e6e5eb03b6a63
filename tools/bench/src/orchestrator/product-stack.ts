/**
 * The product as the benchmark runs it: gateways and oracle workers as separate processes
 * (tools/stack), on the run's Redis, listening on 127.0.0.1 only, with their logs in the run
 * folder. Everything else is the production configuration.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startStack, type ServiceProcess, type Stack } from '@ahp/stack';
import type { WatchedProcess } from '../system/cpu-meter.js';
import type { PhaseContext } from './context.js';
import { describeWorkerRules, publishRules, type StackRedisTarget } from './publish-rules.js';

/** Options of {@link startProductStack}. */
export interface ProductStackOptions {
  /** Names the log folder and the Redis key prefix, so stacks of one run never share keys. */
  name: string;
  /** @defaultValue 1 */
  gateways?: number;
  workers: number;
  /** Node flags for every process (profiling, the memory probe). */
  nodeArgs?: string[];
  /** Extra gateway settings (on top of HOST=127.0.0.1). */
  gatewayEnv?: Record<string, string>;
  /**
   * Keep the gateway's default rate limits instead of lifting them out of the way (the
   * noisy-neighbour phase measures what the limits protect).
   */
  productionLimits?: boolean;
  /**
   * The Redis to run on (the shards phase gives a cluster).
   * @defaultValue the run's private Redis
   */
  redis?: StackRedisTarget;
  /** Extra settings of every process (gateways and workers). */
  env?: Record<string, string>;
  /** Sees every output line of every process (the memory probe's readings arrive this way). */
  onLine?: (service: string, line: string) => void;
}

/** Rate limits far above any rate the load generator offers. */
const LIFTED_LIMITS = {
  AHP_AGENT_RATE_PER_S: '1000000',
  AHP_AGENT_BURST: '1000000',
  // What one agent may make a gateway read: a loadgen agent may send thousands of hooks a second.
  AHP_AGENT_INPUT_FRAMES_PER_S: '10000000',
  AHP_AGENT_INPUT_FRAME_BURST: '10000000',
  AHP_AGENT_INPUT_BYTES_PER_S: String(1024 ** 4),
  AHP_AGENT_INPUT_BYTE_BURST: String(1024 ** 4),
  AHP_OPERATOR_RATE_PER_S: '1000000',
  AHP_OPERATOR_BURST: '1000000',
  // Connections and fresh sessions per agent: the abuse phases reconnect one agent in a loop.
  AHP_AGENT_MAX_CONNECTIONS: '0',
  AHP_AGENT_NEW_SESSIONS_PER_MIN: '0',
} as const;

/** A running stack whose worker count can change between measurements. */
export class ProductStack {
  readonly #active: ServiceProcess[];

  private constructor(
    readonly stack: Stack,
    /** What the workers evaluate with (see publish-rules.ts). */
    readonly rules: string,
    /** The Redis key prefix of its processes (the shadow phase sets a shadow under it). */
    readonly keyPrefix: string,
  ) {
    this.#active = [...stack.workers];
  }

  static async start(ctx: PhaseContext, options: ProductStackOptions): Promise<ProductStack> {
    const logDir = join(ctx.runDir, 'logs', options.name);
    await mkdir(logDir, { recursive: true });
    const onLine = options.onLine;
    const keyPrefix = `bench-${options.name}`;
    const redis = options.redis ?? { url: ctx.redis.url };
    const published = await publishRules(redis, keyPrefix, ctx.rules);
    const stack = await startStack({
      ...(redis.url === undefined ? {} : { redisUrl: redis.url }),
      ...(redis.clusterNodes === undefined ? {} : { redisClusterNodes: redis.clusterNodes }),
      ...(options.env === undefined ? {} : { env: options.env }),
      tokensFile: ctx.tokensFile,
      gateways: options.gateways ?? 1,
      workers: options.workers,
      keyPrefix,
      logDir,
      // Load only to 127.0.0.1: the gateway's default would listen on every interface. The rate
      // limits stay on (their Redis round trip is part of what is measured) but far above any
      // rate the load generator offers, so a saturation search measures the system, not the limit.
      gatewayEnv: {
        HOST: '127.0.0.1',
        ...(options.productionLimits === true ? {} : LIFTED_LIMITS),
        ...options.gatewayEnv,
      },
      ...(options.nodeArgs === undefined ? {} : { nodeArgs: options.nodeArgs }),
      ...(onLine === undefined ? {} : { onLine: (service: string, line: string) => onLine(service, line) }),
    });
    return new ProductStack(stack, await describeWorkerRules(published, stack.workers), keyPrefix);
  }

  /** Agent endpoints of the gateways. */
  urls(): string[] {
    return this.stack.gatewayUrls();
  }

  get workerCount(): number {
    return this.#active.length;
  }

  /** Stops or adds workers until `count` run. */
  async setWorkers(count: number): Promise<void> {
    while (this.#active.length > count) await this.#active.pop()?.stop();
    while (this.#active.length < count) this.#active.push(await this.stack.addWorker());
  }

  /** Its processes, for CPU windows. */
  processes(): WatchedProcess[] {
    return [...this.stack.gateways, ...this.#active].map((service) => ({ name: service.name, pid: service.pid }));
  }

  stop(): Promise<void> {
    return this.stack.stop();
  }
}
