import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { HookDelivery, HookDetailStore } from '@ahp/store';
import { GATEWAY_CONFIG, LOGGER } from '../config/config.tokens.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { GatewayEvents } from '../events/gateway-events.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { HOOK_DETAIL_STORE } from '../store/store.tokens.js';

/** How often delivery times are written: the drill-down's "delivered" is at most this late. */
export const DELIVERY_FLUSH_MS = 500;
/** Deliveries kept for the next flush; beyond this (Redis unreachable for long) the newest are dropped. */
export const MAX_PENDING_DELIVERIES = 50_000;

/**
 * Records when this gateway delivered each decision, for the hook drill-down (docs/console.md).
 * Off the decision path: it listens to `decisionDelivered` and writes in batches every
 * {@link DELIVERY_FLUSH_MS}: a decision with signals by one small script per hook (hook-delivered),
 * which writes only into the drill-down record the worker created; the others — most hooks — by
 * one script call per minute of decision for the whole batch (hooks-delivered, into this gateway's
 * per-minute delivery hash), so they cost a few commands per flush, not per hook. Best-effort: what
 * is pending when the process dies is lost, and the drill-down then shows no delivery time.
 */
@Injectable()
export class DeliveryTimesService implements OnModuleInit, OnModuleDestroy {
  private pending: HookDelivery[] = [];
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private flushing: Promise<void> | undefined;
  private readonly log: JsonLogger;

  constructor(
    @Inject(HOOK_DETAIL_STORE) private readonly details: HookDetailStore,
    @Inject(GatewayEvents) private readonly events: GatewayEvents,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.log = logger.child({ component: 'delivery-times' });
  }

  onModuleInit(): void {
    this.unsubscribe = this.events.on('decisionDelivered', ({ decision, via, at }) => {
      if (this.pending.length >= MAX_PENDING_DELIVERIES) return;
      this.pending.push({ hookId: decision.hook_id, at, via, decidedAt: decision.decided_at, withSignals: decision.signals.length > 0 });
    });
    this.timer = setInterval(() => void this.flush(), DELIVERY_FLUSH_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.flush();
  }

  /** Writes what is pending; one flush at a time. */
  flush(): Promise<void> {
    if (this.flushing !== undefined || this.pending.length === 0) return this.flushing ?? Promise.resolve();
    const batch = this.pending;
    this.pending = [];
    this.flushing = this.details
      .recordDelivered(batch, this.config.gatewayId)
      .catch((error: unknown) => this.log.warn({ error, deliveries: batch.length }, 'recording delivery times failed; the drill-down will show none for these hooks'))
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }
}
