import { Module } from '@nestjs/common';
import { ConfigApiModule } from '../config-api/config-api.module.js';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { ConfigReplayController } from './config-replay.controller.js';
import { ConfigReplayService } from './config-replay.service.js';

/** `/v1/operator/config/replay`: replays of candidate configurations on the oracle workers (docs/operator-api.md). */
@Module({
  imports: [OperatorApiModule, ConfigApiModule],
  controllers: [ConfigReplayController],
  providers: [ConfigReplayService, OperatorAuthGuard],
})
export class ConfigReplayModule {}
