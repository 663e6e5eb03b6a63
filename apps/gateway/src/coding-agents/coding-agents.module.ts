import { Module } from '@nestjs/common';
import { createClaudeCodeAnswerStore, type RedisClient, type StoreKeys } from '@ahp/store';
import { AuthModule } from '../auth/auth.module.js';
import { FleetModule } from '../fleet/fleet.module.js';
import { HooksModule } from '../hooks/hooks.module.js';
import { CodingAgentHooksController } from './coding-agent-hooks.controller.js';
import { CodingAgentHooks } from './coding-agent-hooks.service.js';
import { HOOK_ANSWER_STORE, HookAnswers } from './hook-answers.js';
import { HookIntake } from './hook-intake.js';
import { HookPresence } from './hook-presence.js';
import { PermissionHold } from './permission-hold.js';
import { REDIS, STORE_KEYS } from '../store/store.tokens.js';

/**
 * Coding agents' hooks (Codex here; Claude Code's module builds on the same providers), answered
 * by the same hook machinery as WebSocket agents (docs/coding-agents.md).
 */
@Module({
  // FleetModule: its live feed tells held permission prompts that their request was decided.
  imports: [AuthModule, HooksModule, FleetModule],
  controllers: [CodingAgentHooksController],
  providers: [
    CodingAgentHooks,
    HookIntake,
    HookPresence,
    PermissionHold,
    HookAnswers,
    { provide: HOOK_ANSWER_STORE, inject: [REDIS, STORE_KEYS], useFactory: (redis: RedisClient, keys: StoreKeys) => createClaudeCodeAnswerStore(redis, keys) },
  ],
  exports: [CodingAgentHooks, HookIntake, HookPresence],
})
export class CodingAgentsModule {}
