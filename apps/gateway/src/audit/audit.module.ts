import { Global, Module } from '@nestjs/common';
import { createAuditLog, type RedisClient, type StoreKeys } from '@ahp/store';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';
import { AuditController } from './audit.controller.js';
import { AuditInterceptor } from './audit.interceptor.js';
import { AUDIT_LOG, AuditService } from './audit.service.js';

/**
 * The operators' audit trail: the service that records actions, the interceptor that records the
 * routes marked `@Audited`, and `GET /v1/operator/audit`. Global, so any feature module's
 * controller can use the interceptor.
 */
@Global()
@Module({
  imports: [OperatorApiModule],
  controllers: [AuditController],
  providers: [
    { provide: AUDIT_LOG, inject: [REDIS, STORE_KEYS], useFactory: (redis: RedisClient, keys: StoreKeys) => createAuditLog({ redis, keys }) },
    AuditService,
    AuditInterceptor,
    OperatorAuthGuard,
  ],
  exports: [AuditService, AuditInterceptor],
})
export class AuditModule {}
