import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { CodingAgentsModule } from '../coding-agents/coding-agents.module.js';
import { HooksModule } from '../hooks/hooks.module.js';
import { TimelineModule } from '../timeline/timeline.module.js';
import { ClaudeCodeController } from './claude-code.controller.js';
import { ClaudeCodeService } from './claude-code.service.js';
import { ClaudeCodeTeamActivity } from './claude-code-team-activity.js';

/** Claude Code's `http` hooks, answered by the same hook machinery as WebSocket agents (docs/claude-code.md). */
@Module({
  imports: [AuthModule, HooksModule, CodingAgentsModule, TimelineModule],
  controllers: [ClaudeCodeController],
  providers: [ClaudeCodeService, ClaudeCodeTeamActivity],
})
export class ClaudeCodeModule {}
