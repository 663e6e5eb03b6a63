import { Module } from '@nestjs/common';
import { OperatorAuthGuard } from '../operators/operator-auth.guard.js';
import { OperatorsModule } from '../operators/operators.module.js';
import { GrantsController } from './grants.controller.js';
import { GrantsService } from './grants.service.js';

/**
 * `/v1/operator/grants`: session-wide tool approvals (docs/operator-api.md). The decision route
 * that records grants (`POST …/requests/:id/decision` with `scope`) lives in OperatorsModule,
 * which provides {@link GrantsService} itself (it needs only the global store), so the two
 * modules do not import each other.
 */
@Module({
  imports: [OperatorsModule],
  controllers: [GrantsController],
  providers: [GrantsService, OperatorAuthGuard],
})
export class GrantsModule {}
