import { Module } from '@nestjs/common';
import { AgentAuthService } from './agent-auth.service.js';

/** Agent authentication by bearer token (used at the WebSocket upgrade). */
@Module({
  providers: [AgentAuthService],
  exports: [AgentAuthService],
})
export class AuthModule {}
