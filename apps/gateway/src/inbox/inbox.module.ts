import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { InboxService } from './inbox.service.js';

/** Agents' durable inboxes: sending, acknowledging, and pushing them to connected agents. */
@Module({
  imports: [AuthModule],
  providers: [InboxService],
  exports: [InboxService],
})
export class InboxModule {}
