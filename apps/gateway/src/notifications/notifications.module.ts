import { Module } from '@nestjs/common';
import { createNotificationStore, type RedisClient, type StoreKeys } from '@ahp/store';
import { OperatorAuthGuard } from '../operators/operator-auth.guard.js';
import { OperatorsModule } from '../operators/operators.module.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';
import { NOTIFICATION_STORE, NotificationsController } from './notifications.controller.js';

/** `/v1/operator/notifications`: what the workers' notification deliveries did (docs/notifications.md). */
@Module({
  imports: [OperatorsModule],
  controllers: [NotificationsController],
  providers: [
    { provide: NOTIFICATION_STORE, inject: [REDIS, STORE_KEYS], useFactory: (redis: RedisClient, keys: StoreKeys) => createNotificationStore({ redis, keys }) },
    OperatorAuthGuard,
  ],
})
export class NotificationsModule {}
