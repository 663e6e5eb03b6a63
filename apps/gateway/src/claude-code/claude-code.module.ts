import { Module } from '@nestjs/common';
import { createClaudeCodeAnswerStore, type RedisClient, type StoreKeys } from '@ahp/store';
import { AuthModule } from '../auth/auth.module.js';
import { CodingAgentsModule } from '../coding-agents/coding-agents.module.js';
import { HooksModule } from '../hooks/hooks.module.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';
import { ClaudeCodeController } from './claude-code.controller.js';
import { CLAUDE_CODE_ANSWER_STORE, ClaudeCodeAnswers } from './claude-code-answers.js';
import { ClaudeCodeService } from './claude-code.service.js';
import { ClaudeCodeTeamActivity } from './claude-code-team-activity.js';

/** Claude Code's `http` hooks, answered by the same hook machinery as WebSocket agents (docs/claude-code.md). */
@Module({
  imports: [AuthModule, HooksModule, CodingAgentsModule],
  controllers: [ClaudeCodeController],
  providers: [
    ClaudeCodeService,
    ClaudeCodeAnswers,
    ClaudeCodeTeamActivity,
    { provide: CLAUDE_CODE_ANSWER_STORE, inject: [REDIS, STORE_KEYS], useFactory: (redis: RedisClient, keys: StoreKeys) => createClaudeCodeAnswerStore(redis, keys) },
  ],
})
export class ClaudeCodeModule {}
