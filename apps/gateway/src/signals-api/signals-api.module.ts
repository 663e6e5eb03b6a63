import { Module } from '@nestjs/common';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { HooksApiController } from './hooks-api.controller.js';
import { SignalsApiController } from './signals-api.controller.js';
import { SignalsApiService } from './signals-api.service.js';

/** `/v1/operator/signals`: the signal log and its statistics, and `/v1/operator/hooks/:hookId`, a hook's drill-down, for operators (docs/operator-api.md). */
@Module({
  imports: [OperatorApiModule],
  controllers: [SignalsApiController, HooksApiController],
  providers: [SignalsApiService, OperatorAuthGuard],
})
export class SignalsApiModule {}
