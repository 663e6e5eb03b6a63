import { Module } from '@nestjs/common';
import { OperatorsModule } from '../operators/operators.module.js';
import { OperatorAuthGuard } from '../operators/operator-auth.guard.js';
import { ConfigApiController } from './config-api.controller.js';
import { ConfigApiService } from './config-api.service.js';

/** `/v1/operator/config`: reading and publishing hooks configuration versions (docs/operator-api.md). */
@Module({
  imports: [OperatorsModule],
  controllers: [ConfigApiController],
  providers: [ConfigApiService, OperatorAuthGuard],
  // Replays (config-replay/) and the shadow API (config-shadow/) validate candidates exactly as a publish does.
  exports: [ConfigApiService],
})
export class ConfigApiModule {}
