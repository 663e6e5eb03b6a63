import { Inject, Injectable } from '@nestjs/common';
import { CLOSE_CODES } from '@ahp/protocol';
import { AgentsGateway } from '../agents/agents.gateway.js';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { HooksService } from '../hooks/hooks.service.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { PresenceService } from '../presence/presence.service.js';
import { RequestSweeper } from '../requests/request-sweeper.service.js';
import { StoreLifecycle } from '../store/store.module.js';
import { DrainState } from '../lifecycle/drain-state.js';

/** How long closed sockets get to finish their close handshake before they are destroyed. */
const CLOSE_HANDSHAKE_MS = 2000;
/** Suggested wait before reconnecting after `goaway`; the SDK adds jitter. */
const RECONNECT_AFTER_MS = 250;

/**
 * The graceful shutdown, in the order that loses nothing an agent waits for:
 *
 * 1. drain: /readyz turns 503 and upgrades are refused, so no new agent lands here; the presence
 *    heartbeat says so at once;
 * 2. `goaway` to every agent: stop sending here, reconnect elsewhere;
 * 3. wait up to `AHP_SHUTDOWN_GRACE_MS` for the hooks in flight to be decided and delivered;
 * 4. close every socket with GOING_AWAY (4000, "reconnect");
 * 5. stop deadline timers, the request sweeper and the heartbeat, remove presence, stop the
 *    decision feed, close the queue and Redis.
 *
 * Hooks still pending after the grace period are not lost: their correlation and job are in
 * Redis and the SDK re-sends them (same id) through the gateway it reconnects to.
 */
@Injectable()
export class ShutdownService {
  private running: Promise<void> | undefined;
  private readonly log: JsonLogger;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(DrainState) private readonly drain: DrainState,
    @Inject(AgentsGateway) private readonly gateway: AgentsGateway,
    @Inject(HooksService) private readonly hooks: HooksService,
    @Inject(PresenceService) private readonly presence: PresenceService,
    @Inject(StoreLifecycle) private readonly store: StoreLifecycle,
    @Inject(RequestSweeper) private readonly sweeper: RequestSweeper,
  ) {
    this.log = logger.child({ component: 'shutdown' });
  }

  /** Runs the shutdown once; later calls return the same promise. */
  shutdown(reason = 'gateway shutting down'): Promise<void> {
    this.running ??= this.run(reason);
    return this.running;
  }

  private async run(reason: string): Promise<void> {
    this.drain.start();
    this.log.info({ pendingHooks: this.hooks.pendingCount, graceMs: this.config.shutdownGraceMs }, 'draining');
    await this.presence.heartbeat();
    this.gateway.goawayAll(reason, RECONNECT_AFTER_MS);

    const idle = await this.hooks.waitForIdle(this.config.shutdownGraceMs);
    if (!idle) this.log.warn({ pendingHooks: this.hooks.pendingCount }, 'grace period over with hooks still pending; agents will re-send them');

    this.gateway.stopHeartbeat();
    await this.gateway.closeAll(CLOSE_CODES.GOING_AWAY, 'gateway shutting down', CLOSE_HANDSHAKE_MS);
    this.hooks.stop();
    await this.sweeper.stop();
    await this.presence.stop();
    await this.store.close();
    this.log.info({}, 'drained');
  }
}
