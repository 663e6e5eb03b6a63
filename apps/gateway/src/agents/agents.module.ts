import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { HooksModule } from '../hooks/hooks.module.js';
import { InboxModule } from '../inbox/inbox.module.js';
import { OperatorSignalsModule } from '../operator-signals/operator-signals.module.js';
import { PresenceModule } from '../presence/presence.module.js';
import { RequestsModule } from '../requests/requests.module.js';
import { SignalsModule } from '../signals/signals.module.js';
import { TimelineModule } from '../timeline/timeline.module.js';
import { AgentsGateway } from './agents.gateway.js';
import { FrameRouter } from './frame-router.js';
import { HandshakeService } from './handshake.service.js';

/** The agent WebSocket endpoint: gateway, handshake and frame routing. */
@Module({
  imports: [AuthModule, HooksModule, PresenceModule, SignalsModule, RequestsModule, InboxModule, OperatorSignalsModule, TimelineModule],
  providers: [AgentsGateway, FrameRouter, HandshakeService],
  exports: [AgentsGateway],
})
export class AgentsModule {}
