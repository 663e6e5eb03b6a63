import { Controller, Get, HttpCode, Inject, ServiceUnavailableException } from '@nestjs/common';
import type { HookQueue, RedisClient } from '@ahp/store';
import { GATEWAY_CONFIG } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { DrainState } from '../lifecycle/drain-state.js';
import { HOOK_QUEUE, REDIS } from '../store/store.tokens.js';

/** How long one readiness check may take; node-redis queues commands while offline, so an unbounded wait would hang the probe. */
const CHECK_TIMEOUT_MS = 1000;

type CheckResult = 'ok' | 'draining' | `failed: ${string}`;

async function withTimeout(check: () => Promise<unknown>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return 'ok';
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Probes for orchestrators and load balancers.
 * - `GET /healthz`: the process is alive and serving HTTP (liveness; never touches Redis, so a
 *   Redis outage does not get every gateway restarted).
 * - `GET /readyz`: this instance should receive traffic: Redis answers PING, the hook queue
 *   answers, and it is not draining. 503 otherwise, with each check's result.
 */
@Controller()
export class HealthController {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(HOOK_QUEUE) private readonly queue: HookQueue,
    @Inject(DrainState) private readonly drain: DrainState,
  ) {}

  @Get('healthz')
  @HttpCode(200)
  healthz(): { status: 'ok'; gateway_id: string } {
    return { status: 'ok', gateway_id: this.config.gatewayId };
  }

  @Get('readyz')
  @HttpCode(200)
  async readyz(): Promise<{ status: 'ready'; gateway_id: string; checks: Record<string, CheckResult> }> {
    const checks: Record<string, CheckResult> = { draining: this.drain.draining ? 'draining' : 'ok' };
    if (!this.drain.draining) {
      const [redis, queue] = await Promise.all([withTimeout(() => this.redis.ping()), withTimeout(() => this.queue.counts())]);
      checks['redis'] = redis;
      checks['queue'] = queue;
    }
    const failed = Object.entries(checks)
      .filter(([, result]) => result !== 'ok')
      .map(([name]) => name);
    if (failed.length > 0) {
      throw new ServiceUnavailableException({ status: 'unavailable', gateway_id: this.config.gatewayId, failed, checks });
    }
    return { status: 'ready', gateway_id: this.config.gatewayId, checks };
  }
}
