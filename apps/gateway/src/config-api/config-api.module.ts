import { Module } from '@nestjs/common';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { ConfigApiController } from './config-api.controller.js';
import { ConfigApiService } from './config-api.service.js';

/** `/v1/operator/config`: reading and publishing hooks configuration versions (docs/operator-api.md). */
@Module({
  imports: [OperatorApiModule],
  controllers: [ConfigApiController],
  providers: [ConfigApiService, OperatorAuthGuard],
  // Replays (config-replay/) and the shadow API (config-shadow/) validate candidates exactly as a publish does.
  exports: [ConfigApiService],
})
export class ConfigApiModule {}
