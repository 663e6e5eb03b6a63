import { Module } from '@nestjs/common';
import { createEnforcementStore, type RedisClient, type StoreKeys } from '@ahp/store';
import { AuthModule } from '../auth/auth.module.js';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';
import { EnforcementController } from './enforcement.controller.js';
import { EnforcementService } from './enforcement.service.js';
import { ENFORCEMENT_STORE } from './enforcement.tokens.js';

/** Operators reading and lifting an agent's enforcement state (breakers, hold, escalation counters). */
@Module({
  imports: [AuthModule, OperatorApiModule],
  controllers: [EnforcementController],
  providers: [
    { provide: ENFORCEMENT_STORE, inject: [REDIS, STORE_KEYS], useFactory: (redis: RedisClient, keys: StoreKeys) => createEnforcementStore({ redis, keys }) },
    EnforcementService,
    OperatorAuthGuard,
  ],
})
export class EnforcementModule {}
