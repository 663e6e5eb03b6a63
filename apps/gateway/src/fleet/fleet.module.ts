import { Module } from '@nestjs/common';
import { HooksModule } from '../hooks/hooks.module.js';
import { OperatorAuthGuard } from '../operator-api/operator-auth.guard.js';
import { OperatorApiModule } from '../operator-api/operator-api.module.js';
import { FleetActivityService } from './fleet-activity.service.js';
import { FleetController } from './fleet.controller.js';
import { FleetSnapshotService } from './fleet-snapshot.service.js';
import { GatewayHealthService } from './gateway-health.service.js';
import { LiveFeedService } from './live-feed.service.js';
import { LiveController } from './live.controller.js';

/** The fleet view, the health view and the operators' live feed (docs/operator-api.md). */
@Module({
  imports: [OperatorApiModule, HooksModule],
  controllers: [FleetController, LiveController],
  providers: [FleetActivityService, FleetSnapshotService, GatewayHealthService, LiveFeedService, OperatorAuthGuard],
  // The live feed also wakes coding agents' permission prompts held for a decision (PermissionHold).
  exports: [LiveFeedService],
})
export class FleetModule {}
