import { Module } from '@nestjs/common';
import { DeliveryTimesService } from './delivery-times.service.js';
import { HookTracing } from './hook-tracing.js';
import { HooksService } from './hooks.service.js';
import { PlanGateService } from './plan-gate.js';

/** Hook correlation, enqueueing and decision delivery (with its spans and, for the drill-down, its time). */
@Module({
  providers: [HooksService, PlanGateService, HookTracing, DeliveryTimesService],
  exports: [HooksService],
})
export class HooksModule {}
