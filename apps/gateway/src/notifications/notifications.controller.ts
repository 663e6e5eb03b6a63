import { Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import { NotificationDeliveriesQuerySchema, UuidSchema, makeError, type NotificationDeliveriesResponse, type NotificationReplayResponse, type OperatorIdentity } from '@ahp/protocol';
import type { NotificationQueue, NotificationStore } from '@ahp/store';
import { NOTIFICATION_REPLAY_AUDIT } from '../audit/audit-specs.js';
import { AuditInterceptor } from '../audit/audit.interceptor.js';
import { Audited } from '../audit/audited.decorator.js';
import { OperatorApiError, parseInput } from '../operator-api/api-error.js';
import { CurrentOperator, OperatorAuthGuard, RequireFleetWide, RequireRole } from '../operator-api/operator-auth.guard.js';

/** Injection token of the {@link NotificationStore}. */
export const NOTIFICATION_STORE = Symbol('NOTIFICATION_STORE');
/** Injection token of the {@link NotificationQueue} (the gateway only re-queues dead deliveries; workers deliver). */
export const NOTIFICATION_QUEUE = Symbol('NOTIFICATION_QUEUE');

/**
 * `GET /v1/operator/notifications/deliveries`: the newest notification deliveries (each with its
 * attempts) and the dead-letter list; `POST …/dead-letters/:deliveryId/replay`: a dead delivery
 * queued again. For fleet-wide admins (docs/notifications.md). Deliveries are made by the
 * workers; the gateway reads what they recorded and re-queues, never sends.
 */
@Controller('v1/operator/notifications')
@UseGuards(OperatorAuthGuard)
export class NotificationsController {
  constructor(
    @Inject(NOTIFICATION_STORE) private readonly store: NotificationStore,
    @Inject(NOTIFICATION_QUEUE) private readonly queue: Pick<NotificationQueue, 'replay'>,
  ) {}

  @Get('deliveries')
  @RequireRole('admin')
  // Deliveries name requests and channels of every team.
  @RequireFleetWide()
  async deliveries(@Query() query: unknown): Promise<NotificationDeliveriesResponse> {
    const { limit } = parseInput(NotificationDeliveriesQuerySchema, { ...(query as object) }, 'query');
    const [deliveries, deadLetters] = await Promise.all([this.store.recent(limit), this.store.deadLetters(limit)]);
    return { deliveries, dead_letters: deadLetters };
  }

  /**
   * Re-queues a dead delivery: its attempts start over, on the workers, with the channel as it
   * was configured when the request was created. A request no longer waiting is not announced
   * (the delivery ends `skipped`). 404 when the delivery or its job is no longer kept; 409 when
   * it is not dead (queued, being retried, delivered).
   */
  @Post('dead-letters/:deliveryId/replay')
  @HttpCode(200)
  @RequireRole('admin')
  @RequireFleetWide()
  @Audited(NOTIFICATION_REPLAY_AUDIT)
  @UseInterceptors(AuditInterceptor)
  async replay(@CurrentOperator() operator: OperatorIdentity, @Param('deliveryId') deliveryId: string): Promise<NotificationReplayResponse> {
    const id = parseInput(UuidSchema, deliveryId, 'delivery id');
    const delivery = await this.store.get(id);
    if (delivery === null) throw new OperatorApiError(makeError('E_NOT_FOUND', `no delivery ${id} is kept`, { delivery_id: id }));
    if (delivery.status !== 'dead') throw new OperatorApiError(makeError('E_CONFLICT', `delivery ${id} is ${delivery.status}, not dead`, { delivery_id: id, status: delivery.status }));
    const queued = await this.queue.replay(id);
    if (queued === 'missing') throw new OperatorApiError(makeError('E_NOT_FOUND', `the job of delivery ${id} is no longer kept (failed jobs are kept 7 days)`, { delivery_id: id }));
    if (queued === 'not_failed') throw new OperatorApiError(makeError('E_CONFLICT', `delivery ${id} is already queued again`, { delivery_id: id }));
    await this.store.replayed(id, operator.id);
    return { delivery_id: id, request_id: delivery.request_id, channel: delivery.channel, status: 'pending' };
  }
}
