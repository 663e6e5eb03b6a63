import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { OperatorSignalsController } from './operator-signals.controller.js';
import { OperatorSignalsService } from './operator-signals.service.js';

/** Signals operators push to agents: the route, and pushing them to the agents connected here. */
@Module({
  imports: [AuthModule, OperatorApiModule],
  controllers: [OperatorSignalsController],
  providers: [OperatorSignalsService, OperatorAuthGuard],
  exports: [OperatorSignalsService],
})
export class OperatorSignalsModule {}
