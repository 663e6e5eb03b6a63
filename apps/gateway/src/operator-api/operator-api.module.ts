import { Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { AuthModule } from '../auth/auth.module.js';
import { OperatorAuthGuard } from './operator-auth.guard.js';
import { OperatorAuthService } from './operator-auth.service.js';
import { OperatorErrorFilter } from './operator-error.filter.js';
import { OperatorScopeService } from './operator-scope.service.js';
import { StoreReadyInterceptor } from './store-ready.interceptor.js';

/**
 * What every route under `/v1/operator` shares, whichever feature module serves it: who the caller
 * is (tokens, guard), what the caller may see (team scope), and how errors are answered. Feature
 * modules import this one, never OperatorsModule, so no feature depends on another for its auth.
 */
@Module({
  imports: [AuthModule],
  providers: [
    OperatorAuthService,
    OperatorAuthGuard,
    OperatorScopeService,
    { provide: APP_FILTER, useClass: OperatorErrorFilter },
    // Every operator route (also those of other modules: fleet, signals, config, grants, live).
    { provide: APP_INTERCEPTOR, useClass: StoreReadyInterceptor },
  ],
  exports: [OperatorAuthService, OperatorScopeService],
})
export class OperatorApiModule {}
