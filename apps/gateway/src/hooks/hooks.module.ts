import { Module } from '@nestjs/common';
import { HooksService } from './hooks.service.js';

/** Hook correlation, enqueueing and decision delivery. */
@Module({
  providers: [HooksService],
  exports: [HooksService],
})
export class HooksModule {}
