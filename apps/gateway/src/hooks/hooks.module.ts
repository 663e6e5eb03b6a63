import { Module } from '@nestjs/common';
import { HooksService } from './hooks.service.js';
import { PlanGateService } from './plan-gate.js';

/** Hook correlation, enqueueing and decision delivery. */
@Module({
  providers: [HooksService, PlanGateService],
  exports: [HooksService],
})
export class HooksModule {}
