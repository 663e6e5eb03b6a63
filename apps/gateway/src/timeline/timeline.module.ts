import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { TimelineService } from './timeline.service.js';

/** Agent timelines: recording `event` frames and coding agents' team events (attributed to their sender) and reading them back for operators. */
@Module({
  imports: [AuthModule],
  providers: [TimelineService],
  exports: [TimelineService],
})
export class TimelineModule {}
