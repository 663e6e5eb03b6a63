import { Module } from '@nestjs/common';
import { HooksModule } from '../hooks/hooks.module.js';
import { InboxModule } from '../inbox/inbox.module.js';
import { OperatorSignalsModule } from '../operator-signals/operator-signals.module.js';
import { GatewayFeedService } from './gateway-feed.service.js';

/** The reader of this gateway's feed (decisions, inbox and operator-signal notices). */
@Module({
  imports: [HooksModule, InboxModule, OperatorSignalsModule],
  providers: [GatewayFeedService],
})
export class FeedModule {}
