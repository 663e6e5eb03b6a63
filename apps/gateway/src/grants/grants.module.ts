import { Module } from '@nestjs/common';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { GrantsController } from './grants.controller.js';
import { GrantsService } from './grants.service.js';

/**
 * `/v1/operator/grants`: session-wide tool approvals (docs/operator-api.md). The one provider of
 * {@link GrantsService}: OperatorsModule imports this module for its decision route
 * (`POST …/requests/:id/decision` with `scope`), which records grants.
 */
@Module({
  imports: [OperatorApiModule],
  controllers: [GrantsController],
  providers: [GrantsService, OperatorAuthGuard],
  exports: [GrantsService],
})
export class GrantsModule {}
