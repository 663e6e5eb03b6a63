import { Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { AuthModule } from '../auth/auth.module.js';
import { GrantsService } from '../grants/grants.service.js';
import { PresenceModule } from '../presence/presence.module.js';
import { RequestsModule } from '../requests/requests.module.js';
import { TimelineModule } from '../timeline/timeline.module.js';
import { OperatorAgentsController } from './operator-agents.controller.js';
import { OperatorAuthGuard } from './operator-auth.guard.js';
import { OperatorAuthService } from './operator-auth.service.js';
import { OperatorErrorFilter } from './operator-error.filter.js';
import { OperatorRequestsController } from './operator-requests.controller.js';
import { OperatorScopeService } from './operator-scope.service.js';
import { StoreReadyInterceptor } from './store-ready.interceptor.js';

/** The operator HTTP API under `/v1/operator`, for the ops console and scripts (docs/operator-api.md). */
@Module({
  imports: [AuthModule, RequestsModule, PresenceModule, TimelineModule],
  controllers: [OperatorRequestsController, OperatorAgentsController],
  // GrantsService: the decision route records session grants (GrantsModule serves /grants).
  providers: [
    OperatorAuthService,
    OperatorAuthGuard,
    OperatorScopeService,
    GrantsService,
    { provide: APP_FILTER, useClass: OperatorErrorFilter },
    // Every operator route (also those of other modules: fleet, signals, config, grants, live).
    { provide: APP_INTERCEPTOR, useClass: StoreReadyInterceptor },
  ],
  exports: [OperatorAuthService, OperatorScopeService],
})
export class OperatorsModule {}
