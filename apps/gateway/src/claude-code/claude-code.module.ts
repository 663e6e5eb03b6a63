import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { HooksModule } from '../hooks/hooks.module.js';
import { ClaudeCodeController } from './claude-code.controller.js';
import { ClaudeCodeIntake } from './claude-code-intake.js';
import { ClaudeCodeService } from './claude-code.service.js';

/** Claude Code's `http` hooks, answered by the same hook machinery as WebSocket agents (docs/claude-code.md). */
@Module({
  imports: [AuthModule, HooksModule],
  controllers: [ClaudeCodeController],
  providers: [ClaudeCodeService, ClaudeCodeIntake],
})
export class ClaudeCodeModule {}
