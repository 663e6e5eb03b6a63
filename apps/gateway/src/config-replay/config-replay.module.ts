import { Module } from '@nestjs/common';
import { ConfigApiModule } from '../config-api/config-api.module.js';
import { OperatorsModule } from '../operators/operators.module.js';
import { OperatorAuthGuard } from '../operators/operator-auth.guard.js';
import { ConfigReplayController } from './config-replay.controller.js';
import { ConfigReplayService } from './config-replay.service.js';

/** `/v1/operator/config/replay`: replays of candidate configurations on the oracle workers (docs/operator-api.md). */
@Module({
  imports: [OperatorsModule, ConfigApiModule],
  controllers: [ConfigReplayController],
  providers: [ConfigReplayService, OperatorAuthGuard],
})
export class ConfigReplayModule {}
