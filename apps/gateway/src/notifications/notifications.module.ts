import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createNotificationQueue, createNotificationStore, type NotificationQueue, type RedisClient, type StoreKeys } from '@ahp/store';
import { RequestsModule } from '../requests/requests.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';
import { DecisionLinksController } from './decision-links.controller.js';
import { DecisionLinksService } from './decision-links.service.js';
import { NOTIFICATION_QUEUE, NOTIFICATION_STORE, NotificationsController } from './notifications.controller.js';
import { PushController } from './push.controller.js';

/**
 * `/v1/operator/notifications`: what the workers' notification deliveries did, and replaying a
 * dead one; `/v1/operator/links`: decision links from notifications; `/v1/operator/push`: Web Push
 * subscriptions (docs/notifications.md).
 */
@Module({
  imports: [OperatorApiModule, RequestsModule],
  controllers: [NotificationsController, DecisionLinksController, PushController],
  providers: [
    { provide: NOTIFICATION_STORE, inject: [REDIS, STORE_KEYS], useFactory: (redis: RedisClient, keys: StoreKeys) => createNotificationStore({ redis, keys }) },
    { provide: NOTIFICATION_QUEUE, inject: [REDIS, STORE_KEYS], useFactory: (redis: RedisClient, keys: StoreKeys) => createNotificationQueue({ redis, keys }) },
    DecisionLinksService,
    OperatorAuthGuard,
  ],
})
export class NotificationsModule implements OnApplicationShutdown {
  constructor(@Inject(NOTIFICATION_QUEUE) private readonly queue: NotificationQueue) {}

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }
}
