import { Module } from '@nestjs/common';
import { createShadowConfigStore, type RedisClient, type StoreKeys } from '@ahp/store';
import { ConfigApiModule } from '../config-api/config-api.module.js';
import { LOGGER } from '../config/config.tokens.js';
import type { JsonLogger } from '../logging/json-logger.js';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';
import { ShadowApiController } from './shadow-api.controller.js';
import { ShadowApiService } from './shadow-api.service.js';
import { SHADOW_CONFIG_STORE } from './shadow-api.tokens.js';

/** `/v1/operator/config/shadow`: the shadow hooks configuration (docs/operator-api.md). Import it before ConfigApiModule. */
@Module({
  imports: [OperatorApiModule, ConfigApiModule],
  controllers: [ShadowApiController],
  providers: [
    ShadowApiService,
    OperatorAuthGuard,
    {
      provide: SHADOW_CONFIG_STORE,
      inject: [REDIS, STORE_KEYS, LOGGER],
      useFactory: (redis: RedisClient, keys: StoreKeys, logger: JsonLogger) => createShadowConfigStore({ redis, keys, logger }),
    },
  ],
})
export class ShadowApiModule {}
