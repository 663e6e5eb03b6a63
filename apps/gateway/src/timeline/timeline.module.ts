import { Module } from '@nestjs/common';
import { TimelineService } from './timeline.service.js';

/** Agent timelines: recording `event` frames and reading them back for operators. */
@Module({
  providers: [TimelineService],
  exports: [TimelineService],
})
export class TimelineModule {}
