import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { RequestStore } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { REQUEST_STORE } from '../store/store.tokens.js';

/**
 * Expires pending requests past their deadline, every `AHP_REQUEST_SWEEP_MS`. Every gateway
 * runs one: the store's `expireDue` is atomic per request, so sweepers racing each other expire
 * each request once, and any one surviving gateway keeps expiry going. A sweep that is still
 * running when the next is due is not started twice; a failed sweep is logged and the next one
 * tries again.
 */
@Injectable()
export class RequestSweeper implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly log: JsonLogger;

  constructor(
    @Inject(REQUEST_STORE) private readonly requests: RequestStore,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
  ) {
    this.log = logger.child({ component: 'request-sweeper' });
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.requestSweepMs);
    this.timer.unref();
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  /** Expires what is due now; resolves when done (also when another sweep was already running). */
  sweep(now: number = Date.now()): Promise<void> {
    this.running ??= this.expire(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Stops sweeping and waits for a sweep under way (before the store closes). Idempotent. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async expire(now: number): Promise<void> {
    try {
      const expired = await this.requests.expireDue(now);
      for (const state of expired) {
        this.log.info({ requestId: state.request_id, type: state.type, agentId: state.sender }, 'request expired undecided');
      }
    } catch (error) {
      this.log.warn({ error }, 'expiring due requests failed; the next sweep retries');
    }
  }
}
