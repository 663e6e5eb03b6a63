import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { GrantsModule } from '../grants/grants.module.js';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { PresenceModule } from '../presence/presence.module.js';
import { RequestsModule } from '../requests/requests.module.js';
import { TimelineModule } from '../timeline/timeline.module.js';
import { OperatorAgentsController } from './operator-agents.controller.js';
import { OperatorRequestsController } from './operator-requests.controller.js';

/** The operator HTTP API's requests and agents routes under `/v1/operator` (docs/operator-api.md). */
@Module({
  // GrantsModule: the decision route records session grants through its GrantsService.
  imports: [AuthModule, OperatorApiModule, GrantsModule, RequestsModule, PresenceModule, TimelineModule],
  controllers: [OperatorRequestsController, OperatorAgentsController],
  providers: [OperatorAuthGuard],
})
export class OperatorsModule {}
