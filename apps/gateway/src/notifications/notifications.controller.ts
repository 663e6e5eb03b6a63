import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { NotificationDeliveriesQuerySchema, type NotificationDeliveriesResponse } from '@ahp/protocol';
import type { NotificationStore } from '@ahp/store';
import { parseInput } from '../operators/api-error.js';
import { OperatorAuthGuard, RequireFleetWide, RequireRole } from '../operators/operator-auth.guard.js';

/** Injection token of the {@link NotificationStore}. */
export const NOTIFICATION_STORE = Symbol('NOTIFICATION_STORE');

/**
 * `GET /v1/operator/notifications/deliveries`: the newest notification deliveries (each with its
 * attempts) and the dead-letter list, for fleet-wide admins (docs/notifications.md). Deliveries
 * are made by the workers; this only reads what they recorded.
 */
@Controller('v1/operator/notifications')
@UseGuards(OperatorAuthGuard)
export class NotificationsController {
  constructor(@Inject(NOTIFICATION_STORE) private readonly store: NotificationStore) {}

  @Get('deliveries')
  @RequireRole('admin')
  // Deliveries name requests and channels of every team.
  @RequireFleetWide()
  async deliveries(@Query() query: unknown): Promise<NotificationDeliveriesResponse> {
    const { limit } = parseInput(NotificationDeliveriesQuerySchema, { ...(query as object) }, 'query');
    const [deliveries, deadLetters] = await Promise.all([this.store.recent(limit), this.store.deadLetters(limit)]);
    return { deliveries, dead_letters: deadLetters };
  }
}
